import type { Metadata } from "next";
import { RunDetailPage } from "@/components/run/run-detail-page";
import { routeParam } from "@/components/runs/links";

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
