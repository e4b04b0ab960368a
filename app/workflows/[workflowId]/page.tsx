import type { Metadata } from "next";
import { RunDetailPage } from "@/components/run-detail/run-detail-route";
import { routeParam } from "@/lib/routes/route-for";

type Params = Promise<{ workflowId: string }>;

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const { workflowId } = await params;
  return { title: routeParam(workflowId) };
}

/** The workflow's current run. */
export default async function WorkflowPage({ params }: { params: Params }) {
  const { workflowId } = await params;
  return <RunDetailPage workflowId={routeParam(workflowId)} runId={null} />;
}
