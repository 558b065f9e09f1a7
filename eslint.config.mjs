import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

const config = [
  ...nextVitals,
  ...nextTs,
  {
    ignores: [
      ".next/**",
      "node_modules/**",
      "generated/**",
      ".data/**",
      "native/**/build/**",
      "native/.scratch/**",
      "test-results/**",
      "artifacts/**",
      "next-env.d.ts",
    ],
  },
  {
    // React's hook rules key on the "use" prefix; outside the web UI (trainer, benchmarks, scripts) a function named
    // useBackend is not a hook.
    files: ["trainer/**", "bench/**", "scripts/**", "native/**", "cli/**", "tests/integration/**"],
    rules: { "react-hooks/rules-of-hooks": "off" },
  },
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  // The web app and the trainer meet only in PostgreSQL rows (README, Architecture). The web side never loads
  // TensorFlow.js or trainer code (a Next bundle would pull in the model and native kernels); the trainer never
  // loads the web framework. Shared code lives in lib/ (no I/O) and db/ (the database package both use, which imports
  // neither side).
  {
    files: ["app/**", "components/**", "server/**", "lib/**", "proxy.ts"],
    ignores: ["**/*.test.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["@tensorflow/*"],
              message: "The web side never loads TensorFlow.js: move the code to trainer/ and talk to it through the database.",
            },
            {
              group: ["**/trainer/**", "@/trainer/**"],
              message:
                "The web side never imports the trainer: put shared pure code in lib/, or queue work for a worker through the database.",
            },
          ],
        },
      ],
    },
  },
  {
    files: ["trainer/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["next", "next/*", "react", "react-dom", "@trpc/*", "@tanstack/*"],
              message: "The trainer never loads the web framework; it shares only lib/ and db/ with the web app.",
            },
            {
              group: ["**/components/**", "**/app/**", "**/server/**", "@/server/**"],
              message: "The trainer reaches the web app's data only through the database (db/) and shared lib/ code.",
            },
          ],
        },
      ],
    },
  },
  {
    files: ["db/**"],
    ignores: ["**/*.test.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["@tensorflow/*", "next", "next/*", "react", "react-dom", "@trpc/*", "@tanstack/*"],
              message: "db/ is shared by the web app and the trainer, so it loads neither side's framework.",
            },
            {
              group: ["**/trainer/**", "**/server/**", "**/components/**", "**/app/**", "@/*"],
              message:
                "db/ is shared by the web app and the trainer, so it imports neither side: only lib/ and the generated Prisma client.",
            },
          ],
        },
      ],
    },
  },
];

export default config;
