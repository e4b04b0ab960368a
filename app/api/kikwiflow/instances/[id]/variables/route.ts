import type { NextRequest } from "next/server";
import { refusal } from "@/app/api/actions/_shared/respond";
import { parseEditRequest } from "@/lib/kikwiflow/variable-edit";
import type { VariableProblem } from "@/lib/kikwiflow/variable-edit";
import { guardAction } from "@/lib/server/proxy/action-guard";
import { getConfig } from "@/lib/server/process/config";
import {
  getKikwiflowClient,
  kikwiflowFailure,
  kikwiflowJson,
  kikwiflowNotConfigured,
} from "@/lib/server/kikwiflow/engine";
import { setVariableConfirmed } from "@/lib/server/kikwiflow/variables";
import { getLogger } from "@/lib/server/process/log";

/** The form's rules, said to a direct POST that broke one. */
const PROBLEMS: Readonly<Record<VariableProblem, string>> = {
  name: "A variable name is required.",
  expected: "The value you saw (expected) is required, so a change made since is not overwritten.",
  json_syntax: "A value is required.",
  number_syntax: "A number must be finite.",
  number_unsafe: "A whole number beyond 2^53 would reach the engine rounded.",
  boolean: "A boolean is true or false.",
  too_large: "The value is larger than the console sends (64 KiB).",
  unchanged: "The new value is the one the engine holds: nothing to change.",
};

/**
 * `POST /api/kikwiflow/instances/{id}/variables` `{name, value, expected}`: the engine's set-variables
 * behind the guard every action passes (same origin, read-only mode, role ≥ operator), answered from
 * a read of the instance after the engine's PUT (lib/server/kikwiflow/variables.ts). 409: the
 * variable changed or vanished since the operator saw it; a value the engine refuses is its 400.
 */
export async function POST(request: NextRequest, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  const config = getConfig();
  const refused = guardAction(request.headers, config, "operator");
  if (refused) return refusal(refused);
  const parsed = parseEditRequest(await request.json().catch(() => null));
  if (!parsed.ok) {
    return kikwiflowJson(
      { reason: "invalid_argument", problem: parsed.problem, message: PROBLEMS[parsed.problem], httpStatus: null },
      400,
    );
  }
  const client = getKikwiflowClient(config);
  if (!client || !config.kikwiflow) return kikwiflowNotConfigured();
  const { id } = await params;
  try {
    const answer = await setVariableConfirmed(client, id, parsed.edit);
    if (answer.result === "rejected") return kikwiflowJson({ ...answer, reason: "conflict" }, 409);
    if (answer.result === "refused") {
      const message = `The engine refused this value (HTTP ${answer.httpStatus}: ${answer.engineMessage}).`;
      return kikwiflowJson({ ...answer, reason: "engine_refused", message }, 422);
    }
    // The engine's outbox records the change without the person (no identity reaches it): the log does.
    getLogger().info(
      { kikwiflowInstance: id, variable: answer.name, verdict: answer.verdict.phase },
      "kikwiflow variable set",
    );
    return kikwiflowJson(answer);
  } catch (error) {
    return kikwiflowFailure(error, config.kikwiflow.host, "instance");
  }
}
