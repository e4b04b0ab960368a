import type { Metadata } from "next";
import { RunDetailPage } from "@/components/run-detail/run-detail-route";
import { routeParam } from "@/lib/routes/route-for";
import { loadRunPage, pageNamespace } from "@/lib/server/loaders";

type Params = Promise<{ namespace: string; workflowId: string }>;

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const { workflowId } = await params;
  return { title: routeParam(workflowId) };
}

/** The workflow's current run. */
export default async function WorkflowPage({ params }: { params: Params }) {
  const [namespace, { workflowId: raw }] = await Promise.all([pageNamespace(params), params]);
  const workflowId = routeParam(raw);
  // Not awaited: the page streams its shell while the loader asks the server.
  const loaded = loadRunPage(namespace, workflowId, null);
  return <RunDetailPage namespace={namespace} workflowId={workflowId} loaded={loaded} />;
}
