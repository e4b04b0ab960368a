import type { Metadata } from "next";
import { RunDetailPage } from "@/components/run-detail/run-detail-route";
import { routeParam } from "@/lib/routes/route-for";

type Params = Promise<{ workflowId: string; runId: string }>;

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const { workflowId } = await params;
  return { title: routeParam(workflowId) };
}

export default async function RunPage({ params }: { params: Params }) {
  const { workflowId, runId } = await params;
  return <RunDetailPage workflowId={routeParam(workflowId)} runId={routeParam(runId)} />;
}
