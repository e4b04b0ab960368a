import type { HistoryEventInput } from "@/lib/views/events";
import type { FailureInput } from "@/lib/views/exceptions";
import { RunDerivation } from "@/lib/views/run-derivation";
import type { RunViewLine } from "@/lib/run-view/wire";

/**
 * Test support (imported by tests only): the lines a console server would stream for a recorded
 * history, produced by the contract's own {@link RunDerivation}, and a streamed `Response` that
 * cuts its body at arbitrary byte offsets like a network does.
 */
export function runViewLines(
  events: readonly HistoryEventInput[],
  options: {
    pageSize?: number;
    closed?: boolean;
    recentFailures?: readonly FailureInput[];
    exportOnly?: string[];
  } = {},
): RunViewLine[] {
  const pageSize = options.pageSize ?? 3;
  const derivation = new RunDerivation({ recentFailures: options.recentFailures ?? [] });
  const total = events.at(-1)?.sequence ?? 0;
  const lines: RunViewLine[] = [
    {
      t: "meta",
      closed: options.closed ?? true,
      total,
      cache: "miss",
      pageSize,
      exportOnly: options.exportOnly ?? ["tasks", "commands", "links"],
    },
  ];
  for (let i = 0; i < events.length; i += pageSize) {
    const page = events.slice(i, i + pageSize);
    for (const chunk of derivation.add(page)) lines.push(chunk);
    lines.push({ t: "progress", read: page.at(-1)?.sequence ?? 0, total });
  }
  lines.push({ t: "snapshot", snapshot: derivation.snapshot(0) });
  lines.push({ t: "done", lastSequence: derivation.lastSequence });
  return lines;
}

export function ndjson(lines: readonly RunViewLine[]): string {
  return lines.map((line) => `${JSON.stringify(line)}\n`).join("");
}

/** A body that arrives in pieces of `pieceBytes` (lines split mid-way), optionally stalling before the end. */
export function streamedResponse(
  text: string,
  options: { pieceBytes?: number; status?: number; hold?: Promise<void> } = {},
): Response {
  const bytes = new TextEncoder().encode(text);
  const piece = options.pieceBytes ?? 7;
  let offset = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (offset >= bytes.length) {
        if (options.hold) await options.hold;
        controller.close();
        return;
      }
      controller.enqueue(bytes.slice(offset, offset + piece));
      offset += piece;
    },
  });
  return new Response(body, {
    status: options.status ?? 200,
    headers: { "Content-Type": "application/x-ndjson" },
  });
}
