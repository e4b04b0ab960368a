import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { ScheduleScreen } from "@/components/schedules/schedule-screen";
import { PageHeader } from "@/components/ui/page-header";
import Link from "@/components/ui/link";
import { pageNamespace } from "@/lib/server/pages/loaders";
import { routeParam, screenHref } from "@/lib/routes/route-for";

export async function generateMetadata({ params }: { params: Promise<{ scheduleId: string }> }): Promise<Metadata> {
  const { scheduleId } = await params;
  return { title: routeParam(scheduleId) };
}

export default async function SchedulePage({ params }: { params: Promise<{ namespace: string; scheduleId: string }> }) {
  const [t, namespace, { scheduleId: raw }] = await Promise.all([
    getTranslations("pages.schedule"),
    pageNamespace(params),
    params,
  ]);
  const scheduleId = routeParam(raw);
  return (
    <>
      <PageHeader title={scheduleId} description={t("description")}>
        <Link href={screenHref(namespace, "schedules")} className="text-sm text-accent hover:underline">
          {t("back")}
        </Link>
      </PageHeader>
      <ScheduleScreen namespace={namespace} scheduleId={scheduleId} />
    </>
  );
}
