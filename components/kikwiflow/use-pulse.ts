"use client";

import { useEffect, useRef, useState } from "react";
import type { PulseSnapshot } from "@/lib/kikwiflow/schemas";
import {
  INITIAL_PULSE_STATE,
  type PulseEvent,
  type PulseState,
  pulseReducer,
  reconnectDelayMs,
  silenced,
} from "@/lib/kikwiflow/pulse-state";
import { sseData } from "@/lib/kikwiflow/sse";
import { kikwiflowPulsePath } from "@/lib/queries/kikwiflow";
import { withBasePath } from "@/lib/http/base-path";

const TICK_MS = 1_000;

async function problemOf(response: Response): Promise<string> {
  const body = (await response.json().catch(() => null)) as { message?: unknown } | null;
  return typeof body?.message === "string" ? body.message : `HTTP ${response.status}`;
}

/**
 * The live pulse of one definition through the console's relay: the latest snapshot (validated on
 * the console server) and the connection state (lib/kikwiflow/pulse-state.ts). fetch rather than
 * EventSource, so a 404 (unknown definition: stop) and a 503 or 429 (relay busy, or this person's
 * share of relays taken: retry) are told apart and their sentences shown; reconnects back off
 * 1 s … 15 s, but a relay that ended at the end of its lifetime is reopened at once.
 */
export function usePulse(definitionId: string): { state: PulseState; snapshot: PulseSnapshot | null } {
  const [state, setState] = useState<PulseState>(INITIAL_PULSE_STATE);
  const [snapshot, setSnapshot] = useState<PulseSnapshot | null>(null);
  const stateRef = useRef<PulseState>(INITIAL_PULSE_STATE);

  useEffect(() => {
    let stopped = false;
    let connection: AbortController | null = null;
    let retry: ReturnType<typeof setTimeout> | undefined;
    const apply = (event: PulseEvent) => {
      const before = stateRef.current;
      stateRef.current = pulseReducer(before, event);
      setState(stateRef.current);
      return { before, after: stateRef.current };
    };
    // A different definition is a different page (a new mount), so nothing is reset here.

    const reconnect = (problem?: string) => {
      if (stopped) return;
      apply({ type: "dropped", at: Date.now(), problem });
      retry = setTimeout(() => void connect(), reconnectDelayMs(stateRef.current));
    };

    async function connect(): Promise<void> {
      const controller = new AbortController();
      connection = controller;
      try {
        const response = await fetch(withBasePath(kikwiflowPulsePath(definitionId)), {
          headers: { accept: "text/event-stream" },
          signal: controller.signal,
        });
        if (response.status === 404) {
          apply({ type: "failed", at: Date.now(), problem: await problemOf(response) });
          return;
        }
        if (!response.ok || !response.body) return reconnect(await problemOf(response));
        let opening = true;
        for await (const data of sseData(response.body)) {
          setSnapshot(JSON.parse(data) as PulseSnapshot);
          // The relay's first frame is its plain snapshot, off the engine's beat (pulse-state.ts).
          apply({ type: "frame", at: Date.now(), opening });
          opening = false;
        }
        // A clean end is the relay's lifetime running out (lib/server/kikwiflow/pulse-relay.ts): open the
        // next one now, still live. Every failure errors the stream instead and lands in the catch.
        if (!stopped) void connect();
      } catch {
        // Network failure, or the silence rule aborted this connection: try again unless unmounted.
        reconnect();
      }
    }

    void connect();
    const ticker = setInterval(() => {
      const { before, after } = apply({ type: "tick", now: Date.now() });
      // The stream looks open but sends nothing: drop it; its catch schedules the reconnect.
      if (silenced(before, after)) connection?.abort();
    }, TICK_MS);
    return () => {
      stopped = true;
      clearInterval(ticker);
      clearTimeout(retry);
      connection?.abort();
    };
  }, [definitionId]);

  return { state, snapshot };
}
