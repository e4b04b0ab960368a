"""Search attributes through the official SDK's client at its defaults: `create_search_attribute`,
`list_search_attributes` and `delete_search_attribute` with the real server's answers and refusals
(server@11d35b7 SearchAttributeController.php; lib/dw/fixtures/search-attribute.md), then typed values
set at start and by a workflow's `upsert_search_attributes`, found again by `list_workflows(query=…)`
in the visibility-query syntax of WorkflowVisibilityQuery.php@ca70b5e."""

from __future__ import annotations

import asyncio

import pytest
from conftest import EmbeddedServer
from sdk_support import closed, new_id, running_worker, sdk_client, wait_history
from durable_workflow import workflow
from durable_workflow.errors import InvalidArgument, ServerError


@workflow.defn(name="conformance.search_attributes.tagger")
class TaggerWorkflow:
    def run(self, ctx, region):  # noqa: ANN001, ANN201
        yield ctx.upsert_search_attributes({"SaRegion": region, "SaPriority": 7, "SaTags": ["fragile", "gift"]})
        return region


def test_registry_through_the_sdk(server: EmbeddedServer) -> None:
    async def scenario() -> None:
        async with sdk_client(server) as client:
            name = "Sa" + new_id("Attr").replace("-", "_")
            created = await client.create_search_attribute(name, "keyword")
            assert created == {"name": name, "type": "keyword", "outcome": "created"}

            listed = await client.list_search_attributes()
            assert listed.system_attributes["WorkflowType"] == "keyword"
            assert listed.system_attributes["StartTime"] == "datetime"
            assert listed.custom_attributes[name] == "keyword"

            with pytest.raises(ServerError) as dup:
                await client.create_search_attribute(name, "int")
            assert dup.value.status == 409
            assert dup.value.body["reason"] == "attribute_already_exists" and dup.value.body["type"] == "keyword"
            with pytest.raises(ServerError) as reserved:
                await client.create_search_attribute("WorkflowId", "keyword")
            assert reserved.value.status == 409 and reserved.value.body["reason"] == "name_reserved"
            with pytest.raises(InvalidArgument) as bad_type:
                await client.create_search_attribute("SaValid", "decimal")
            assert bad_type.value.errors == {"type": ["The selected type is invalid."]}

            deleted = await client.delete_search_attribute(name)
            assert deleted == {"name": name, "outcome": "deleted"}
            with pytest.raises(ServerError) as missing:
                await client.delete_search_attribute(name)
            assert missing.value.status == 404 and missing.value.body["reason"] == "attribute_not_found"
            with pytest.raises(ServerError) as system:
                await client.delete_search_attribute("WorkflowType")
            assert system.value.status == 409 and system.value.body["reason"] == "system_attribute"
            assert name not in (await client.list_search_attributes()).custom_attributes

    asyncio.run(scenario())


def test_typed_values_filter_the_list(server: EmbeddedServer) -> None:
    async def scenario() -> None:
        async with sdk_client(server) as client:
            existing = (await client.list_search_attributes()).custom_attributes
            for name, kind in (("SaRegion", "keyword"), ("SaPriority", "int"), ("SaTags", "keyword_list")):
                if name not in existing:
                    await client.create_search_attribute(name, kind)
            queue, region = new_id("q"), new_id("region")
            tagged = await client.start_workflow(
                workflow_type="conformance.search_attributes.tagger", task_queue=queue, workflow_id=new_id("tagged"), input=[region]
            )
            plain = await client.start_workflow(
                workflow_type="conformance.search_attributes.tagger",
                task_queue=queue,
                workflow_id=new_id("plain"),
                input=["elsewhere"],
                search_attributes={"SaRegion": region, "SaPriority": 1},
            )
            # Before any worker: only the start's attributes are there.
            found = await client.list_workflows(query=f'SaRegion = "{region}" AND SaPriority < 5')
            assert [e.workflow_id for e in found.executions] == [plain.workflow_id]
            async with running_worker(client, task_queue=queue, workflows=[TaggerWorkflow]):
                for handle in (tagged, plain):
                    await wait_history(client, handle.workflow_id, handle.run_id, closed("WorkflowCompleted"), what="the tagger ends")
            found = await client.list_workflows(query=f'SaRegion = "{region}" AND SaTags = gift')
            assert [e.workflow_id for e in found.executions] == [tagged.workflow_id]
            assert found.executions[0].search_attributes == {"SaPriority": 7, "SaRegion": region, "SaTags": ["fragile", "gift"]}
            with pytest.raises(InvalidArgument) as bad:
                await client.list_workflows(query="SaPriority = high")
            assert bad.value.errors == {"query": ["[SaPriority] must be compared with an integer literal."]}

    asyncio.run(scenario())
