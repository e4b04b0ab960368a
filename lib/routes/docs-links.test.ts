import { describe, expect, it } from "vitest";
import { failuresDocsLink } from "@/lib/routes/docs-links";

describe("failuresDocsLink", () => {
  it("links the published English page for every console locale, and says the page is English", () => {
    for (const locale of ["en", "pt-BR", "de", "fr", "ja", "es", "zh-Hans"])
      expect(failuresDocsLink(locale)).toEqual({
        href: "https://durable-workflow.com/docs/failures-and-recovery/",
        lang: "en",
      });
  });

  it("links the Ukrainian build of the page for Ukrainian, the one translation the site publishes", () => {
    expect(failuresDocsLink("uk")).toEqual({
      href: "https://durable-workflow.com/uk/docs/failures-and-recovery/",
      lang: "uk",
    });
  });
});
