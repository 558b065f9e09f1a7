/**
 * Decides whether the Next.js build is stale: a content hash of everything the web bundle is built from.
 * `npm start` rebuilds only when it changed, so a second start is instant while a `git pull` still rebuilds.
 */
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
