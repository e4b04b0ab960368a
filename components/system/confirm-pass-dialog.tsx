"use client";

import Link from "@/components/ui/link";
import { useTranslations } from "next-intl";
import { screenHref } from "@/lib/routes/route-for";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";

export type PassKind = "repair" | "timeouts" | "retention";

/**
 * A maintenance pass acts on the whole server, every namespace: the server's repair and
 * activity-timeout passes read no namespace (durable-workflow/server@11d35b7
 * app/Http/Controllers/Api/SystemController.php `repairPass`, `activityTimeoutEnforcePass`; the
 * embedded server's server/http/control-plane/system-routes.ts likewise), as the System panel's
 * "global, not per namespace" says. Its report counts what it did without naming runs (the engine's
 * TaskWatchdog report, durable-workflow/workflow@8dc90d6 src/V2/TaskWatchdog.php `run_ids` is only
 * the requested scope), so it is confirmed first, saying so (issue 15: it ran fleet-wide on one
 * click). Work on named runs goes through Attention's bulk repair.
 */
export function ConfirmPassDialog({
  pass,
  namespace,
  candidates,
  onConfirm,
  onClose,
}: {
  pass: PassKind | null;
  namespace: string;
  /** What the status read says the pass would select, when known. */
  candidates: number | null;
  onConfirm: (pass: PassKind) => void;
  onClose: () => void;
}) {
  const t = useTranslations("system.confirm");
  return (
    <Dialog open={pass !== null} onClose={onClose} labelledBy="confirm-pass-title" testId="confirm-pass-dialog">
      {pass ? (
        <div className="space-y-4 p-5">
          <h2 id="confirm-pass-title" className="text-base font-semibold">
            {t(`${pass}.title`, { namespace })}
          </h2>
          <p className="text-sm">
            {candidates === null ? t(`${pass}.scopeUnknown`) : t(`${pass}.scope`, { count: candidates })}
          </p>
          {pass === "retention" ? (
            // Retention works in this namespace only and names every run it prunes (HistoryRetentionEnforcer::runPass).
            <p className="text-sm text-fg-muted">{t("retention.irreversible")}</p>
          ) : (
            <p className="text-sm text-fg-muted">
              {t("noRunIds")}{" "}
              <Link className="text-accent underline" href={screenHref(namespace, "attention")}>
                {t("attention")}
              </Link>
            </p>
          )}
          <div className="flex justify-end gap-2">
            <Button variant="secondary" onClick={onClose}>
              {t("cancel")}
            </Button>
            <Button variant="primary" data-testid="confirm-pass" onClick={() => onConfirm(pass)}>
              {t(`${pass}.run`)}
            </Button>
          </div>
        </div>
      ) : null}
    </Dialog>
  );
}
