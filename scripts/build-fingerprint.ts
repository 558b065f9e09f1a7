/**
 * Decides whether the Next.js build is stale: a content hash of everything the web bundle is built from.
 * `npm start` rebuilds only when it changed, so a second start is instant while a `git pull` still rebuilds.
 * Every build goes through buildWebApp (`npm run build`, `npm start`, `npm test`), so each one is recorded.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";

const INPUTS = [
  "app",
  "components",
  "server",
  "lib",
  "public",
  "generated",
  "proxy.ts",
  "next.config.js",
  "postcss.config.mjs",
  "package-lock.json",
  "tsconfig.json",
];
const STAMP = ".next/rollout-lab-build-fingerprint";

function* files(p: string): Generator<string> {
  if (!existsSync(p)) return;
  if (statSync(p).isFile()) {
    yield p;
    return;
  }
  for (const entry of readdirSync(p).sort()) yield* files(path.join(p, entry));
}

export function computeFingerprint(root = process.cwd()): string {
  const hash = createHash("sha256");
  for (const input of INPUTS) {
    for (const file of files(path.join(root, input))) {
      hash.update(path.relative(root, file));
      hash.update(readFileSync(file));
    }
  }
  return hash.digest("hex");
}

export function buildIsCurrent(root = process.cwd()): boolean {
  const stamp = path.join(root, STAMP);
  return existsSync(path.join(root, ".next/BUILD_ID")) && existsSync(stamp) && readFileSync(stamp, "utf8") === computeFingerprint(root);
}

export function recordBuild(root = process.cwd()): void {
  writeFileSync(path.join(root, STAMP), computeFingerprint(root));
}

type Spawn = (
  command: string,
  args: string[],
  options: { cwd: string; stdio: "inherit"; env: Record<string, string | undefined> },
) => { status: number | null };

/**
 * `next build` in `root`; true when it succeeded. Never with Next's telemetry: Rollout Lab sends nothing anywhere by
 * default, and `npm start` used to print Next's telemetry notice because its build did not say so.
 */
export function runNextBuild(root: string, spawn: Spawn = spawnSync, env: Record<string, string | undefined> = process.env): boolean {
  const res = spawn(process.execPath, [path.join(root, "node_modules/next/dist/bin/next"), "build"], {
    cwd: root,
    stdio: "inherit",
    env: { ...env, NEXT_TELEMETRY_DISABLED: "1" },
  });
  return res.status === 0;
}

/**
 * Builds the web app and records the build's fingerprint, so the next `npm start` serves it instead of building
 * again. The fingerprint is taken after the build: Next may rewrite tsconfig.json on its first build.
 */
export function buildWebApp(root = process.cwd(), build: (root: string) => boolean = runNextBuild): boolean {
  if (!build(root)) return false;
  recordBuild(root);
  return true;
}
