import { getTranslations } from "next-intl/server";

export type ScreenKey =
  | "overview"
  | "runs"
  | "attention"
  | "failures"
  | "system"
  | "workers"
  | "search-attributes"
  | "namespaces"
  | "schedules";

/** The page title of a top-level screen, from the catalog (used by each route's metadata). */
export async function screenTitle(screen: ScreenKey): Promise<string> {
  const t = await getTranslations("pages");
  return t(`${screen}.title`);
}
