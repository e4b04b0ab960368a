/**
 * A full garbage collection in a Node process started with `--inspect=127.0.0.1:<port>`, through
 * the inspector protocol's `HeapProfiler.collectGarbage` (V8 collects all it can and gives unused
 * heap pages back). A memory figure measured from "before" to a peak then counts what the work
 * needs, not garbage an earlier step left: V8's memory reducer releases that garbage only after
 * 10–30 s of idle, and a peak that reuses it reads as a small or zero rise (0–59 MB for the same
 * first view, 2026-12-06). Needs WebSocket (Node 20: `--experimental-websocket`).
 */
export async function collectGarbage(port: number, timeoutMs = 30_000): Promise<void> {
  if (typeof WebSocket === "undefined")
    throw new Error("no WebSocket in this Node (run it with --experimental-websocket on Node 20)");
  const res = await fetch(`http://127.0.0.1:${port}/json/list`, { signal: AbortSignal.timeout(timeoutMs) });
  const targets = (await res.json()) as { webSocketDebuggerUrl?: string }[];
  const url = targets[0]?.webSocketDebuggerUrl;
  if (!url) throw new Error(`the inspector on port ${port} lists no target`);
  const ws = new WebSocket(url);
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("the inspector did not answer collectGarbage")), timeoutMs);
      ws.addEventListener("error", () => reject(new Error(`cannot talk to the inspector at ${url}`)));
      ws.addEventListener("open", () => ws.send(JSON.stringify({ id: 1, method: "HeapProfiler.collectGarbage" })));
      ws.addEventListener("message", (m) => {
        const answer = JSON.parse(String(m.data)) as { id?: number; error?: { message: string } };
        if (answer.id !== 1) return;
        clearTimeout(timer);
        if (answer.error) reject(new Error(`collectGarbage: ${answer.error.message}`));
        else resolve();
      });
    });
  } finally {
    ws.close();
  }
}
