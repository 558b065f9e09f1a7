import { test } from "node:test";
import assert from "node:assert/strict";
import { runWebBuild } from "./web-build";

test("the web build runs with Next's telemetry off, whatever the caller's environment says", () => {
  const seen: Record<string, string | undefined>[] = [];
  const failing = (_c: string, _a: string[], o: { env: Record<string, string | undefined> }) => (seen.push(o.env), { status: 1 });
  assert.equal(runWebBuild(failing, { PATH: "/usr/bin", NEXT_TELEMETRY_DISABLED: "0" }), false, "a failed build is reported");
  assert.equal(seen[0].NEXT_TELEMETRY_DISABLED, "1");
  assert.equal(seen[0].PATH, "/usr/bin");
});
