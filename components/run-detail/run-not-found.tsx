"use client";

import { useParams } from "next/navigation";
import { useTranslations } from "next-intl";
import Link from "@/components/ui/link";
import { DwErrorState } from "@/components/dw/dw-error-state";
import { ID_HEADING } from "@/components/ui/id-heading";
import { routeParam, runsListHref, workflowHref } from "@/lib/routes/route-for";

/**
 * The run page's not-found state, drawn by the run routes' `not-found.tsx` after the page called
 * `notFound()` so the answer is a 404. A not-found file gets no params, so the ids come from the
 * route's own (still percent-encoded) params. On the run route the server said the workflow or the
 * run is unknown; `notFound()` carries no reason, so the words name both rather than guess.
 */
export function RunNotFound() {
  const t = useTranslations("run");
  const params = useParams<{ namespace?: string; workflowId?: string; runId?: string }>();
  const namespace = routeParam(params.namespace ?? "default");
  const workflowId = routeParam(params.workflowId ?? "");
  const runId = params.runId === undefined ? null : routeParam(params.runId);
  return (
    <div className="space-y-4">
      <h1 className={ID_HEADING} title={workflowId}>
        {t("titleFor", { workflowId })}
      </h1>
      {runId === null ? (
        <DwErrorState
          error={{ reason: "instance_not_found", httpStatus: 404, message: `${namespace} / ${workflowId}`, namespace }}
        />
      ) : (
        <section
          role="alert"
          data-testid="dw-error"
          data-reason="not_found"
          className="rounded-lg border border-bad/40 bg-panel px-6 py-8"
        >
          <h2 className="text-base font-semibold text-bad">{t("notFound.runTitle")}</h2>
          <p className="mt-2 max-w-2xl text-sm text-fg">{t("notFound.run", { namespace, workflowId, runId })}</p>
        </section>
      )}
      <div className="flex flex-wrap gap-4 text-sm">
        <Link href={runsListHref(namespace)} className="text-accent hover:underline">
          ← {t("backToRuns")}
        </Link>
        {runId !== null ? (
          <Link href={workflowHref(namespace, workflowId)} className="text-accent hover:underline">
            {t("notFound.openWorkflow")}
          </Link>
        ) : null}
      </div>
    </div>
  );
}
