import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { GzipAnswer, cutLines } from "./answer-gzip";
import { replayThen } from "./run-state";
import type { Subscriber } from "./run-state";

const line = (text: string) => Buffer.from(`${text}\n`, "utf8");

/** A page of chunk lines large enough that zlib emits output before the end (not one small block). */
function page(at: number): Buffer[] {
  return [0, 1, 2].map((n) => line(JSON.stringify({ at, n, pad: `${at}-${n}-`.repeat(2000 + n * 97) })));
}

function text(lines: readonly Buffer[]): string {
  return Buffer.concat(lines).toString("utf8");
}

describe("GzipAnswer", () => {
  it("inflates what it holds mid-walk to every line after `since`, and ends as the whole answer's gzip", async () => {
    const head = line('{"t":"meta"}');
    const answer = new GzipAnswer(head);
    const pages = [1000, 2000, 3000].map((at) => ({ at, lines: page(at) }));
    answer.append(pages[0]!.at, pages[0]!.lines);
    answer.append(pages[1]!.at, pages[1]!.lines);
    const fromStart = answer.lines(0);
    const afterFirst = answer.lines(1000);
    // Appended while the replay is read: not part of it (its count was taken at the call).
    answer.append(pages[2]!.at, pages[2]!.lines);
    expect(text(await fromStart) === text([...pages[0]!.lines, ...pages[1]!.lines])).toBe(true);
    expect(text(await afterFirst) === text(pages[1]!.lines)).toBe(true);
    expect(text(await answer.lines(2000, 6))).toBe(text([]));
    const tail = [line('{"t":"done"}')];
    const gzip = await answer.end(tail);
    const all = [head, ...pages.flatMap((p) => p.lines), ...tail];
    expect(gunzipSync(gzip).toString("utf8") === text(all)).toBe(true);
    expect(answer.bytes).toBe(gzip.length);
    expect(gzip.length).toBeLessThan(Buffer.concat(all).length / 4);
    // A finished answer still answers a replay, from its whole gzip.
    expect(text(await answer.lines(2000)) === text(pages[2]!.lines)).toBe(true);
    expect(() => answer.append(4000, page(4000))).toThrow(/finished/);
  });

  it("replays only up to the count asked for", async () => {
    const answer = new GzipAnswer(line("h"));
    answer.append(1, [line("a"), line("b")]);
    answer.append(2, [line("c")]);
    expect(text(await answer.lines(0, 2))).toBe("a\nb\n");
    expect(text(await answer.lines(1))).toBe("c\n");
    answer.close();
  });

  it("refuses an index that runs past the inflated bytes", () => {
    expect(() =>
      cutLines(
        Buffer.from("h\na\n"),
        2,
        [
          { at: 1, bytes: 2 },
          { at: 2, bytes: 5 },
        ],
        0,
      ),
    ).toThrow(/shorter/);
    expect(
      cutLines(
        Buffer.from("h\na\nbc\n"),
        2,
        [
          { at: 1, bytes: 2 },
          { at: 2, bytes: 3 },
        ],
        1,
      ).map(String),
    ).toEqual(["bc\n"]);
  });
});

function recorder(): Subscriber & { got: string[]; ended: number } {
  const got: string[] = [];
  const out = {
    got,
    ended: 0,
    write(lines: readonly Buffer[]) {
      for (const l of lines) got.push(l.toString("utf8").trim());
    },
    end() {
      out.ended += 1;
    },
  };
  return out;
}

describe("replayThen", () => {
  it("sends the replay before the live lines that came while it was read, and ends after them", async () => {
    const target = recorder();
    let release: (lines: Buffer[]) => void = () => {};
    const replay = new Promise<Buffer[]>((resolve) => (release = resolve));
    const sub = replayThen(target, [line("meta")], replay, [line("progress")], () => line("error"));
    sub.write([line("live-1"), line("live-2")]);
    sub.write([line("live-3")]);
    sub.end();
    expect(target.got).toEqual([]);
    release([line("old-1"), line("old-2")]);
    await replay;
    await Promise.resolve();
    expect(target.got).toEqual(["meta", "old-1", "old-2", "progress", "live-1", "live-2", "live-3"]);
    expect(target.ended).toBe(1);
    sub.write([line("late")]);
    sub.end();
    expect(target.got.at(-1)).toBe("live-3");
    expect(target.ended).toBe(1);
  });

  it("passes live lines straight through once the replay is sent", async () => {
    const target = recorder();
    const replay = Promise.resolve([line("old")]);
    const sub = replayThen(target, [line("meta")], replay, [], () => line("error"));
    await replay;
    await Promise.resolve();
    sub.write([line("live")]);
    expect(target.got).toEqual(["meta", "old", "live"]);
    expect(target.ended).toBe(0);
    sub.end();
    expect(target.ended).toBe(1);
  });

  it("ends with the error line when the replay fails, dropping what it held", async () => {
    const target = recorder();
    const replay = Promise.reject(new Error("zlib broke"));
    const sub = replayThen(target, [line("meta")], replay, [line("progress")], (e) =>
      line(`error ${(e as Error).message}`),
    );
    sub.write([line("live")]);
    await replay.catch(() => undefined);
    await Promise.resolve();
    expect(target.got).toEqual(["meta", "error zlib broke"]);
    expect(target.ended).toBe(1);
    sub.write([line("more")]);
    sub.end();
    expect(target.ended).toBe(1);
  });
});
