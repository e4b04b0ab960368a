import { describe, expect, it } from "vitest";
import { archiveState } from "./run-archive";

describe("archiveState", () => {
  it("reads the server's archived time and reason", () => {
    expect(
      archiveState({ is_terminal: true, archived_at: "2026-12-07T10:00:00Z", archive_reason: "audit done" }),
    ).toEqual({ at: "2026-12-07T10:00:00Z", reason: "audit done" });
  });

  it("knows a closed run is archived when the server no longer offers archive, without inventing a time", () => {
    expect(archiveState({ is_terminal: true, actions: { can_archive: false } })).toEqual({ at: null, reason: null });
  });

  it("says nothing for a closed run still archivable, or an open run", () => {
    expect(archiveState({ is_terminal: true, actions: { can_archive: true } })).toBeNull();
    expect(archiveState({ is_terminal: false, actions: { can_archive: false } })).toBeNull();
  });
});
