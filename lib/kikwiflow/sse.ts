/**
 * Server-Sent Events framing, both ways, with no dependencies: the console server reads the engine's
 * pulse stream with {@link sseData} and re-encodes validated snapshots with {@link sseFrame}; the
 * browser reads the console's relay with {@link sseData} again (fetch, so it sees the relay's status).
 */

/** Splits an SSE byte stream into the `data` of each event (multi-line data joined with "\n"). */
export async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let data: string[] = [];
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let newline: number;
      while ((newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + (buffer.startsWith("\r\n", newline) ? 2 : 1));
        if (line === "") {
          if (data.length > 0) yield data.join("\n");
          data = [];
        } else if (line.startsWith("data:")) {
          data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
        }
        // `event:`, `id:`, `retry:` and `:` comments carry nothing the console reads.
      }
    }
  } finally {
    // Also on an early `break` by the consumer: cancelling closes the connection, so the engine's
    // emitter sees the disconnect and stops polling for this subscriber.
    await reader.cancel().catch(() => undefined);
  }
}

/** One unnamed event whose `data` is `json` serialised (JSON has no raw newlines, so one line). */
export function sseFrame(json: unknown): string {
  return `data: ${JSON.stringify(json)}\n\n`;
}
