"use client";

import { useParams } from "next/navigation";
import { parseNamespace } from "@/lib/preferences";
import { routeParam } from "@/lib/routes/route-for";

/**
 * The namespace of the page on screen, from its URL (`/namespaces/{ns}/…`), or null on a page
 * outside one (sign-in, not found). The shell's switcher and navigation follow it.
 */
export function usePageNamespace(): string | null {
  const params = useParams<{ namespace?: string }>();
  const raw = params?.namespace;
  return typeof raw === "string" ? parseNamespace(routeParam(raw)) : null;
}
