import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { KikwiflowInstanceScreen } from "@/components/kikwiflow/instance-screen";
import { ID_HEADING } from "@/components/ui/id-heading";
import { getConfig } from "@/lib/server/process/config";
import { routeParam } from "@/lib/routes/route-for";

export async function generateMetadata({ params }: { params: Promise<{ id: string }> }): Promise<Metadata> {
  const t = await getTranslations("kikwiflow.instance");
  return { title: `${t("title")} ${routeParam((await params).id)}` };
}

export default async function KikwiflowInstancePage({ params }: { params: Promise<{ id: string }> }) {
  if (!getConfig().kikwiflow) notFound();
  const [t, id] = await Promise.all([getTranslations("kikwiflow.instance"), params.then((p) => routeParam(p.id))]);
  return (
    <>
      <div className="mb-4">
        <p className="text-xs font-semibold text-fg-muted uppercase">{t("title")}</p>
        <h1 className={ID_HEADING} title={id}>
          {id}
        </h1>
      </div>
      <KikwiflowInstanceScreen instanceId={id} />
    </>
  );
}
