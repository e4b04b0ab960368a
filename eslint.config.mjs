import { defineConfig, globalIgnores } from "eslint/config";
import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";
import prettier from "eslint-config-prettier/flat";

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
              message: "Server-only code: load data in lib/server/loaders.ts from an app/ page and pass it down.",
            },
            {
              // A regex, not a group: a gitignore-style "@/lib/dw" would also match every module below it.
              regex: "^@/lib/dw(/(index|client|schema-kit|schemas-[a-z]+))?$",
              allowTypeImports: true,
              message:
                "These lib/dw modules carry zod: import only their types (`import type`); read through lib/queries or @/lib/dw/browser-client.",
            },
          ],
        },
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
  ]),
]);
