import type { Metadata } from "next";
import { RunDetailPage } from "@/components/run/run-detail-page";
import { routeParam } from "@/components/runs/links";

type Params = Promise<{ workflowId: string; runId: string }>;

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const { workflowId } = await params;
  return { title: routeParam(workflowId) };
}

export default async function RunPage({ params }: { params: Params }) {
  const { workflowId, runId } = await params;
  return <RunDetailPage workflowId={routeParam(workflowId)} runId={routeParam(runId)} />;
}
