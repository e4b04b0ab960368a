import { describe, expect, it } from "vitest";
import {
  isTypingTarget,
  opensSheet,
  SHORTCUT_GROUPS,
  shortcutAction,
  shortcutGroupsFor,
} from "@/lib/shortcuts/registry";

describe("shortcutAction", () => {
  it("maps each group's keys to its actions and nothing else", () => {
    expect(shortcutAction("runsList", "j")).toBe("nextRow");
    expect(shortcutAction("runsList", "ArrowUp")).toBe("previousRow");
    expect(shortcutAction("runsList", "l")).toBeNull();
    expect(shortcutAction("history", "l")).toBe("nextEventPage");
    expect(shortcutAction("runTabs", "End")).toBe("lastTab");
  });

  it("gives no key two actions within a group", () => {
    for (const shortcuts of Object.values(SHORTCUT_GROUPS)) {
      const keys = shortcuts.flatMap((shortcut) => [...shortcut.keys]);
      expect(new Set(keys).size).toBe(keys.length);
    }
  });
});

describe("shortcutGroupsFor", () => {
  it("lists the current screen's keys first and the shell's everywhere", () => {
    expect(shortcutGroupsFor("/namespaces/default/runs", null)).toEqual(["runsList", "everywhere"]);
    expect(shortcutGroupsFor("/namespaces/default/workflows/a%2Fb/runs/r1", null)).toEqual(["runTabs", "everywhere"]);
    expect(shortcutGroupsFor("/namespaces/default/workflows/w/runs/r1", "history")).toEqual([
      "runTabs",
      "history",
      "everywhere",
    ]);
    expect(shortcutGroupsFor("/namespaces/default/failures", null)).toEqual(["everywhere"]);
    expect(shortcutGroupsFor("/kikwiflow", null)).toEqual(["everywhere"]);
  });
});

describe("opening the sheet", () => {
  const key = (k: string, mods: Partial<{ ctrlKey: boolean; altKey: boolean; metaKey: boolean }> = {}) => ({
    key: k,
    ctrlKey: false,
    altKey: false,
    metaKey: false,
    ...mods,
  });

  it("opens on ? alone, not with Ctrl, Alt or Meta, nor on /", () => {
    expect(opensSheet(key("?"))).toBe(true);
    expect(opensSheet(key("?", { ctrlKey: true }))).toBe(false);
    expect(opensSheet(key("?", { metaKey: true }))).toBe(false);
    expect(opensSheet(key("/"))).toBe(false);
  });

  it("leaves keys typed into fields to the fields", () => {
    expect(isTypingTarget({ tagName: "INPUT", type: "search" })).toBe(true);
    expect(isTypingTarget({ tagName: "INPUT" })).toBe(true);
    expect(isTypingTarget({ tagName: "TEXTAREA" })).toBe(true);
    expect(isTypingTarget({ tagName: "SELECT" })).toBe(true);
    expect(isTypingTarget({ tagName: "DIV", isContentEditable: true })).toBe(true);
    expect(isTypingTarget({ tagName: "INPUT", type: "checkbox" })).toBe(false);
    expect(isTypingTarget({ tagName: "BUTTON" })).toBe(false);
    expect(isTypingTarget(null)).toBe(false);
  });
});
