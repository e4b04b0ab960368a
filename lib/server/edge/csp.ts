import "server-only";
import { createHash, randomBytes } from "node:crypto";
import { HEAD_SCRIPT } from "@/lib/preferences/head-script";

/**
 * The Content-Security-Policy proxy.ts puts on every response it handles (docs/decisions/0012).
 * Scripts: a fresh nonce per request, which Next.js reads from this header in the request and puts
 * on its own scripts (node_modules/next/dist/docs/01-app/02-guides/content-security-policy.md), plus
 * the hash of the layout's no-flash theme script, and 'strict-dynamic' so the chunks those load may
 * load theirs. The run page's Web Worker is a same-origin chunk (worker-src 'self': with
 * 'strict-dynamic', script-src's 'self' would not cover it). Style attributes stay allowed
 * (style-src-attr): server-rendered `style=""` (virtual lists, charts) is not nonce-able, and CSS
 * cannot run script; <style> and stylesheets need the nonce or this origin.
 */

export const HEAD_SCRIPT_HASH = `'sha256-${createHash("sha256").update(HEAD_SCRIPT).digest("base64")}'`;

export function newNonce(): string {
  return randomBytes(18).toString("base64");
}

export function contentSecurityPolicy(nonce: string, options: { https: boolean; dev: boolean }): string {
  const directives = [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' ${HEAD_SCRIPT_HASH} 'strict-dynamic'${options.dev ? " 'unsafe-eval'" : ""}`,
    // next dev injects <style> without a nonce; a nonce in the list would disable 'unsafe-inline'.
    `style-src 'self' ${options.dev ? "'unsafe-inline'" : `'nonce-${nonce}'`}`,
    "style-src-attr 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "worker-src 'self'",
    "manifest-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ];
  // Only over https: on a plain-http deployment it would send every subresource to a port nobody serves.
  if (options.https) directives.push("upgrade-insecure-requests");
  return directives.join("; ");
}
