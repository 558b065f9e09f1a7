// Generates the Prisma client offline (docs/operations.md, "Migrations offline").
// The Prisma CLI tries to download a native schema engine first; generate does not need it,
// so we point it at /bin/true. Never use this trick for migrations (it silently applies nothing).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

if (!existsSync("prisma/schema.prisma")) process.exit(0);
const result = spawnSync("npx", ["prisma", "generate"], {
  stdio: "inherit",
  env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: "/bin/true", PRISMA_HIDE_UPDATE_MESSAGE: "1" },
});
process.exit(result.status ?? 1);
