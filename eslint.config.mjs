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
    ignores: ["**/*.test.ts", "**/*.test.tsx"],
    rules: {
      "import/no-restricted-paths": ["error", { zones: [...BOUNDARY_ZONES, CONSOLE_TO_SERVER_ZONE] }],
    },
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
    },
  },
  {
    // These checks must see every request a page makes (CSP reports, URLs that could carry a token), so
    // they wait for the network to go quiet rather than for one element.
    files: ["e2e/csp.spec.ts", "e2e/security.spec.ts"],
    rules: { "playwright/no-networkidle": "off" },
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
  ]),
]);
