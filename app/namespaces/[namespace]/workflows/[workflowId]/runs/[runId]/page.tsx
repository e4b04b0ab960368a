import type { Metadata } from "next";
import { QuerySeeds } from "@/components/providers/query-seeds";
import { RunDetailPage } from "@/components/run-detail/run-detail-route";
import { routeParam } from "@/lib/routes/route-for";
import { loadRunPage, loadWorkflowRunsSeed, pageNamespace } from "@/lib/server/pages/loaders";

type Params = Promise<{ namespace: string; workflowId: string; runId: string }>;

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const { workflowId } = await params;
  return { title: routeParam(workflowId) };
}

export default async function RunPage({ params }: { params: Params }) {
  const [namespace, { workflowId: rawWorkflowId, runId }] = await Promise.all([pageNamespace(params), params]);
  const workflowId = routeParam(rawWorkflowId);
  // Not awaited: the page streams its shell while the loader asks the server.
  const loaded = loadRunPage(namespace, workflowId, routeParam(runId));
  // The workflow's runs (previous/next, runs panel) stream in too, so hydration does not ask for them.
  return (
    <QuerySeeds state={loadWorkflowRunsSeed(namespace, workflowId)}>
      <RunDetailPage namespace={namespace} workflowId={workflowId} loaded={loaded} />
    </QuerySeeds>
  );
}
