import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { getTranslations } from "next-intl/server";
import Link from "@/components/ui/link";
import { KikwiflowDefinitionScreen } from "@/components/kikwiflow/definition-screen";
import { ID_HEADING } from "@/components/ui/id-heading";
import { getConfig } from "@/lib/server/process/config";
import { KIKWIFLOW_DEFINITIONS_HREF, routeParam } from "@/lib/routes/route-for";

export async function generateMetadata({ params }: { params: Promise<{ id: string }> }): Promise<Metadata> {
  const t = await getTranslations("kikwiflow.definition");
  return { title: `${t("title")} ${routeParam((await params).id)}` };
}

export default async function KikwiflowDefinitionPage({ params }: { params: Promise<{ id: string }> }) {
  if (!getConfig().kikwiflow) notFound();
  const [t, id] = await Promise.all([getTranslations("kikwiflow.definition"), params.then((p) => routeParam(p.id))]);
  return (
    <>
      <div className="mb-4 flex flex-wrap items-end justify-between gap-4">
        <div>
          <p className="text-xs font-semibold text-fg-muted uppercase">{t("title")}</p>
          <h1 className={ID_HEADING} title={id}>
            {id}
          </h1>
        </div>
        <Link href={KIKWIFLOW_DEFINITIONS_HREF} className="text-sm text-accent hover:underline">
          {t("back")}
        </Link>
      </div>
      <KikwiflowDefinitionScreen definitionId={id} />
    </>
  );
}
