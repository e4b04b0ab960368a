/**
 * A refusal the engine can explain: the HTTP layers render `status`, `reason`, `message` and the
 * extra fields verbatim, so the wire error matches what the real server answers for the same case.
 */
export class EngineError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "EngineError";
  }
}

/** 422 `validation_failed` with the `{field: [messages]}` map both planes render as `errors` and `validation_errors`. */
export function validationError(errors: Record<string, string[]>): EngineError {
  const first = Object.values(errors)[0]?.[0] ?? "The given data was invalid.";
  return new EngineError(422, "validation_failed", first, { errors, validation_errors: errors });
}
