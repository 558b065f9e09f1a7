/**
 * `npm run build` counts as a build: `npm start` afterwards serves it instead of building again (it used to run
 * plain `next build`, which left no fingerprint, so the first `npm start` built a second time).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { buildIsCurrent, buildWebApp } from "./build-fingerprint";

/** A checkout with one source file and a stand-in for `next build` that writes what Next writes last. */
function checkout(): { root: string; build: (root: string) => boolean; builds: () => number } {
  const root = mkdtempSync(path.join(tmpdir(), "rl-build-"));
  mkdirSync(path.join(root, "app"));
  writeFileSync(path.join(root, "app/page.tsx"), "export default function Page() {}");
  let count = 0;
  const build = (dir: string) => {
    count++;
    mkdirSync(path.join(dir, ".next"), { recursive: true });
    writeFileSync(path.join(dir, ".next/BUILD_ID"), `build ${count}`);
    return true;
  };
  return { root, build, builds: () => count };
}

test("npm run build goes through the recorded build", () => {
  const pkg = JSON.parse(readFileSync(path.join(import.meta.dirname, "../package.json"), "utf8")) as { scripts: Record<string, string> };
  assert.equal(pkg.scripts.build, "node --import tsx scripts/build.ts");
  assert.match(readFileSync(path.join(import.meta.dirname, "build.ts"), "utf8"), /buildWebApp\(\)/);
});

test("a recorded build is current until a source changes; a failed build records nothing", () => {
  const { root, build, builds } = checkout();
  try {
    assert.equal(buildIsCurrent(root), false);
    assert.equal(buildWebApp(root, build), true);
    assert.equal(builds(), 1);
    assert.equal(buildIsCurrent(root), true, "npm start would serve this build");
    writeFileSync(path.join(root, "app/page.tsx"), "export default function Page() { return null; }");
    assert.equal(buildIsCurrent(root), false, "an edited source needs a new build");
    assert.equal(
      buildWebApp(root, () => false),
      false,
    );
    assert.equal(buildIsCurrent(root), false);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("the web build runs with Next's telemetry off, whatever the caller's environment says", async () => {
  const { runNextBuild } = await import("./build-fingerprint");
  const seen: Record<string, string | undefined>[] = [];
  const failing = (_c: string, _a: string[], o: { env: Record<string, string | undefined> }) => (seen.push(o.env), { status: 1 });
  assert.equal(runNextBuild("/nowhere", failing, { PATH: "/usr/bin", NEXT_TELEMETRY_DISABLED: "0" }), false, "a failed build is reported");
  assert.equal(seen[0].NEXT_TELEMETRY_DISABLED, "1");
  assert.equal(seen[0].PATH, "/usr/bin");
});
