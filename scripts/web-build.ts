/**
 * `next build` as `npm start` and the test runner run it. Never with Next's telemetry: Rollout Lab sends nothing
 * anywhere by default, and `npm start` used to print Next's telemetry notice because its build did not say so.
 */
import { spawnSync } from "node:child_process";
import { recordBuild } from "./build-fingerprint";

type Spawn = (
  command: string,
  args: string[],
  options: { stdio: "inherit"; env: Record<string, string | undefined> },
) => { status: number | null };

/** Builds the web app (output on this terminal); records the build's fingerprint when it succeeds. */
export function runWebBuild(spawn: Spawn = spawnSync, env: Record<string, string | undefined> = process.env): boolean {
  const build = spawn(process.execPath, ["node_modules/next/dist/bin/next", "build"], {
    stdio: "inherit",
    env: { ...env, NEXT_TELEMETRY_DISABLED: "1" },
  });
  if (build.status !== 0) return false;
  recordBuild();
  return true;
}
