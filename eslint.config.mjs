import { defineConfig, globalIgnores } from "eslint/config";
import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";
import prettier from "eslint-config-prettier/flat";
import playwright from "eslint-plugin-playwright";

/** Import boundaries (issue 13, docs/architecture.md); used by the boundary config objects below. */
const BOUNDARY_ZONES = [
  {
    target: "./server",
    from: ["./app", "./components", "./lib", "./proxy.ts"],
    message: "server/ shares no code with the console: write it against the contract (docs/architecture.md).",
  },
  {
    target: "./lib",
    from: ["./components", "./app"],
    message: "lib/ sits below components/ and app/: move what both need into lib/.",
  },
  {
    target: "./app/api",
    from: "./components",
    message: "Route handlers take the action contract and mappings from lib/ (lib/actions), not from components/.",
  },
];
const CONSOLE_TO_SERVER_ZONE = {
  target: ["./app", "./components", "./lib", "./proxy.ts"],
  from: "./server",
  message: "The console talks to server/ only over the HTTP API: import nothing from it.",
};

/**
 * The embedded server's layers (issue 40): store ← engine ← read ← http, one way. The worker SDK
 * (server/sdk) and the demo stand apart: it talks to the server over HTTP only, and no layer imports
 * either. codec/ and the root leaves (clock, ids, invariant) are shared by all and import none of them.
 */
const SERVER_LAYERS = ["store", "engine", "read", "http"];
const SERVER_ABOVE = (layer) => SERVER_LAYERS.slice(SERVER_LAYERS.indexOf(layer) + 1).map((l) => `./server/${l}`);
/** Harnesses and fixtures that start or script a real server; tests (and each other) import them. */
const SERVER_TEST_SUPPORT = [
  "./server/test-support",
  "./server/http/test-support.ts",
  "./server/http/control-plane/test-support.ts",
  "./server/http/hostile",
];
const SERVER_ZONES = [
  ...SERVER_LAYERS.map((layer) => ({
    target: `./server/${layer}`,
    from: [...SERVER_ABOVE(layer), "./server/sdk", "./server/demo", "./server/main.ts"],
    message: `server/${layer} imports only the layers below it (store ← engine ← read ← http), never sdk/ or demo/ (docs/architecture.md).`,
  })),
  {
    target: "./server/sdk",
    from: ["./server/store", "./server/engine", "./server/read", "./server/http", "./server/demo"],
    message: "The worker SDK talks to the server over HTTP only; the payload codec is server/codec.",
  },
  {
    target: ["./server/codec", "./server/clock.ts", "./server/ids.ts", "./server/invariant.ts"],
    from: ["./server/store", "./server/engine", "./server/read", "./server/http", "./server/sdk", "./server/demo"],
    message: "codec/ and the root leaves are shared by every server layer and import none of them.",
  },
  {
    target: "./server",
    from: SERVER_TEST_SUPPORT,
    message: "Test support (harnesses, fixtures) is for tests only: *.test.ts or server/test-support.",
  },
];

export default defineConfig([
  ...nextVitals,
  ...nextTs,
  {
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/consistent-type-imports": [
        "error",
        { prefer: "type-imports", fixStyle: "separate-type-imports" },
      ],
    },
  },
  // Import boundaries (issue 13): the layering app → components → lib, and server/ sharing nothing
  // with the console, enforced instead of held by care. scripts/, bench/, e2e/, contracts/ and
  // conformance/ drive both programs on purpose and sit in no zone. Console tests may start the
  // embedded server as the real counterpart they test against (the route tests do), so the
  // console → server zone covers production code only. (Flat config replaces, not merges, a rule's
  // options per file, so the second object repeats the shared zones.)
  {
    files: ["**/*.{ts,tsx,mts,mjs}"],
    rules: { "import/no-restricted-paths": ["error", { zones: BOUNDARY_ZONES }] },
  },
  {
    files: ["app/**/*.{ts,tsx}", "components/**/*.{ts,tsx}", "lib/**/*.{ts,tsx}", "proxy.ts"],
    // The action route tests' shared harness starts the embedded server, as those tests do.
    ignores: ["**/*.test.ts", "**/*.test.tsx", "app/api/actions/_shared/route-test-support.ts"],
    rules: {
      "import/no-restricted-paths": ["error", { zones: [...BOUNDARY_ZONES, CONSOLE_TO_SERVER_ZONE] }],
    },
  },
  // The server's layers hold for its production code; its tests may start the whole server (the
  // harnesses are what the test-support zone keeps out of production code).
  {
    files: ["server/**/*.ts"],
    ignores: ["server/**/*.test.ts", "server/test-support/**", "server/**/test-support.ts", "server/http/hostile/**"],
    rules: { "import/no-restricted-paths": ["error", { zones: [...BOUNDARY_ZONES, ...SERVER_ZONES] }] },
  },
  // Type-aware lint (issue 13, item 6): a promise nobody awaits loses its rejection, so every one is
  // awaited, handled, or marked `void` on purpose. projectService reads tsconfig.json per file.
  {
    files: ["**/*.{ts,tsx,mts}"],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: { "@typescript-eslint/no-floating-promises": "error" },
  },
  // Playwright's recommended rules for the browser suite (issue 13, item 6).
  {
    files: ["e2e/**"],
    ...playwright.configs["flat/recommended"],
    rules: {
      ...playwright.configs["flat/recommended"].rules,
      // Specs skip, with a reason shown in the report, when their fixture (a DW server, a build) is absent.
      "playwright/no-skipped-test": ["warn", { allowConditional: true }],
      // Helpers shared by specs that assert inside (e2e/sdk-runs.ts) count as assertions.
      "playwright/expect-expect": ["warn", { assertFunctionNames: ["expectRetriedActivity", "expectRefusedActivity"] }],
    },
  },
  {
    // These checks must see every request a page makes (CSP reports, URLs that could carry a token), so
    // they wait for the network to go quiet rather than for one element.
    files: ["e2e/csp.spec.ts", "e2e/security.spec.ts"],
    rules: { "playwright/no-networkidle": "off" },
  },
  // Boundary: components run in the browser (or render on the server from data handed to them).
  // Server code — tokens, config, the DW client with credentials, the loaders — stays in lib/server
  // and is reached by app/ pages and routes only; the zod-carrying lib/dw modules (the validating
  // client and the schemas) stay out of client bundles (decision 0010), so components take only their
  // types. Client-safe lib/dw modules remain open: browser-client, transport's helpers, errors,
  // enums, codec (lazy-loaded) and prevalidated. Type imports are erased at build time, so they pull
  // no server code or zod into a bundle (the shell takes ShellContext, computed on the server, as
  // props). Tests may build fixtures with the real decoders.
  {
    files: ["components/**/*.{ts,tsx}"],
    ignores: ["components/**/*.test.{ts,tsx}"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["@/lib/server", "@/lib/server/**"],
              allowTypeImports: true,
              message: "Server-only code: load data in lib/server/pages/loaders.ts from an app/ page and pass it down.",
            },
            {
              // A regex, not a group: a gitignore-style "@/lib/dw" would also match every module below it.
              regex: "^@/lib/dw(/(index|client|schema-kit|schemas-[a-z]+|payload-display))?$",
              allowTypeImports: true,
              message:
                "These lib/dw modules carry zod: import only their types (`import type`); read through lib/queries or @/lib/dw/browser-client.",
            },
            {
              // The handlers' body schemas: zod builds an object schema by probing `new Function`,
              // which the CSP reports as an eval violation on the page that loads it.
              regex:
                "^@/lib/actions/(commands|schemas|system-passes|namespace-actions|schedule-commands|search-attributes|update-command)$",
              allowTypeImports: true,
              message:
                "These lib/actions modules carry zod (the handlers' body schemas): import only their types; rules live in the zod-free *-rules.ts modules.",
            },
            {
              group: ["next/link"],
              message: "Use @/components/ui/link: it prefetches on hover or focus only (decision 0030).",
            },
            {
              // The Kikwiflow client, schemas and event readers carry zod: the console's routes parse
              // the engine's answers (app/api/kikwiflow), the browser gets the parsed shapes.
              regex: "^@/lib/kikwiflow(/(index|client|schemas|events|engine-host|pulse-stream))?$",
              allowTypeImports: true,
              message:
                "These lib/kikwiflow modules carry zod: import only their types; read through lib/queries/kikwiflow.ts.",
            },
          ],
        },
      ],
    },
  },
  // The run view's browser half (lib/run-view: wire, stream reader, store, early read, hook) runs in
  // the run page; its server half is lib/server/run-view. So no server-only code, and only types
  // from the zod-carrying lib/dw modules (decision 0010), as for components/.
  {
    files: ["lib/run-view/**/*.{ts,tsx}"],
    ignores: ["lib/run-view/**/*.test.{ts,tsx}"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["@/lib/server", "@/lib/server/**"],
              allowTypeImports: true,
              message: "lib/run-view runs in the browser: server code goes in lib/server/run-view.",
            },
            {
              regex: "^@/lib/dw(/(index|client|schema-kit|schemas-[a-z]+|payload-display))?$",
              allowTypeImports: true,
              message: "These lib/dw modules carry zod: lib/run-view imports only their types.",
            },
          ],
        },
      ],
    },
  },
  // lib/views, lib/queries and lib/confirm run in the browser too (screens import them): the same
  // zod boundary as components/, so a screen's bundle never builds a schema.
  {
    files: ["lib/views/**/*.{ts,tsx}", "lib/queries/**/*.{ts,tsx}", "lib/confirm/**/*.{ts,tsx}"],
    ignores: ["lib/**/*.test.{ts,tsx}"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^@/lib/dw(/(index|client|schema-kit|schemas-[a-z]+|payload-display))?$",
              allowTypeImports: true,
              message: "These lib/dw modules carry zod: browser-side lib code imports only their types.",
            },
            {
              // The handlers' body schemas: zod builds an object schema by probing `new Function`,
              // which the CSP reports as an eval violation on the page that loads it.
              regex:
                "^@/lib/actions/(commands|schemas|system-passes|namespace-actions|schedule-commands|search-attributes|update-command)$",
              allowTypeImports: true,
              message:
                "These lib/actions modules carry zod (the handlers' body schemas): import only their types; rules live in the zod-free *-rules.ts modules.",
            },
          ],
        },
      ],
    },
  },
  // components/ui is what every screen shares, Durable Workflow's and Kikwiflow's alike: it knows no
  // screen folder; what is Durable-Workflow-specific lives in components/dw.
  {
    files: ["components/ui/**/*.{ts,tsx}"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^@/components/(?!ui/|hooks/)",
              message:
                "components/ui is shared by every screen: move the piece into components/ui or use it from a screen folder.",
            },
          ],
        },
      ],
    },
  },
  // Pages link through the console's Link too (decision 0030): a viewport prefetch of a dynamic page
  // is a server render nobody asked for.
  {
    files: ["app/**/*.{ts,tsx}"],
    rules: {
      "no-restricted-imports": [
        "error",
        { paths: [{ name: "next/link", message: "Use @/components/ui/link (decision 0030)." }] },
      ],
    },
  },
  // Formatting is prettier's (checked by `npm run lint`); turn off the stylistic rules it owns.
  prettier,
  globalIgnores([
    ".next/**",
    ".next-*/**",
    "out/**",
    "build/**",
    "next-env.d.ts",
    "test-results/**",
    "playwright-report/**",
    ".ci-out/**",
    ".data/**",
    ".venv-sdk/**",
    // The Kikwiflow engine's source copy and build output (scripts/kikwiflow.sh): third-party files.
    ".cache/**",
    "engines/**/target/**",
  ]),
]);
