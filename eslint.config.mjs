import { defineConfig, globalIgnores } from "eslint/config";
import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";
import prettier from "eslint-config-prettier/flat";

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
