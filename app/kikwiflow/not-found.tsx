import { getTranslations } from "next-intl/server";
import { EmptyState } from "@/components/ui/empty-state";
import { getConfig } from "@/lib/server/process/config";

/**
 * /kikwiflow/** without KIKWIFLOW_URL: still a 404 (this console has no such section, and a link
 * checker or script should see that), but the page says how to connect an engine instead of a bare
 * "Page not found" (issue 37). With an engine configured, a missing page is an ordinary 404.
 */
export default async function KikwiflowNotFound() {
  const configured = getConfig().kikwiflow !== null;
  const t = await getTranslations(configured ? "notFound" : "kikwiflow.unconfigured");
  if (configured) {
    return (
      <EmptyState title={t("title")}>
        <p>{t("body")}</p>
      </EmptyState>
    );
  }
  return (
    <section
      aria-labelledby="kikwiflow-unconfigured-title"
      data-testid="kikwiflow-unconfigured"
      className="mx-auto max-w-2xl space-y-3 rounded-lg border border-dashed border-line bg-panel px-6 py-10 text-sm text-fg-muted"
    >
      <h1 id="kikwiflow-unconfigured-title" className="text-lg font-semibold text-fg">
        {t("title")}
      </h1>
      <p>{t("body")}</p>
      <dl className="grid grid-cols-1 gap-x-4 gap-y-2 sm:grid-cols-[auto_1fr]">
        <dt>
          <code className="font-mono text-fg">KIKWIFLOW_URL</code>
        </dt>
        <dd>{t("url")}</dd>
        <dt>
          <code className="font-mono text-fg">KIKWIFLOW_TENANT</code>
        </dt>
        <dd>{t("tenant")}</dd>
      </dl>
      <pre className="overflow-x-auto rounded-md bg-panel-muted px-3 py-2 font-mono text-xs text-fg">
        KIKWIFLOW_URL=http://127.0.0.1:8095 npm start
      </pre>
      <p>{t("readme")}</p>
    </section>
  );
}
