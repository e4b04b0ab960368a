"""The SDK's offline bundle verifier over the history exports of every run the other scenarios made.

Named to run last (pytest orders files by name): it reads the runs the scenarios recorded in
`sdk_support.SDK_MADE_RUNS`. Run alone it fails, saying so, rather than verify nothing.
"""

from __future__ import annotations

import asyncio

from conftest import EmbeddedServer
from durable_workflow.history_bundle_verify import verify_bundle
from sdk_support import SDK_MADE_RUNS, sdk_client


def test_every_sdk_made_run_exports_a_bundle_the_sdk_verifier_accepts(server: EmbeddedServer) -> None:
    runs = list(SDK_MADE_RUNS)
    assert len(runs) >= 10, f"only {len(runs)} SDK-made runs recorded: run the whole conformance suite, not this file alone"

    async def verify_all() -> dict[str, list[dict[str, object]]]:
        problems: dict[str, list[dict[str, object]]] = {}
        async with sdk_client(server) as client:
            for workflow_id, run_id in runs:
                report = verify_bundle(await client.export_history(workflow_id, run_id))
                findings = [f for f in report["findings"] if f.get("severity") in ("error", "warning")]
                if report["status"] != "ok" or findings:
                    problems[f"{workflow_id}/{run_id}"] = findings or [{"status": report["status"]}]
        return problems

    assert asyncio.run(verify_all()) == {}
    print(f"\n{len(runs)} SDK-made run exports verified by durable_workflow.history_bundle_verify: 0 errors, 0 warnings")
