import { test } from "node:test";
import assert from "node:assert/strict";
import { checkPassword, createSessionValue, isPublicPath, safeNextPath, verifySessionValue } from "./dashboard-session";

test("a session cookie verifies with the same password only, and not after it expires or is altered", async () => {
  const value = await createSessionValue("hunter2", 1_000);
  assert.equal(await verifySessionValue(value, "hunter2", 2_000), true);
  assert.equal(await verifySessionValue(value, "other", 2_000), false, "changing the password signs everyone out");
  assert.equal(await verifySessionValue(value, "hunter2", 1_000 + 8 * 24 * 3600 * 1000), false, "expired");
  const [expires, mac] = value.split(".");
  assert.equal(await verifySessionValue(`${Number(expires) + 1}.${mac}`, "hunter2", 2_000), false, "a later expiry is not forgeable");
  assert.equal(await verifySessionValue("garbage", "hunter2"), false);
  assert.equal(await verifySessionValue(undefined, "hunter2"), false);
});

test("passwords compare exactly; REST, health and login stay public; next= never leaves the site", async () => {
  assert.equal(await checkPassword("hunter2", "hunter2"), true);
  assert.equal(await checkPassword("hunter", "hunter2"), false);
  assert.ok(isPublicPath("/api/v1/runs") && isPublicPath("/api/health") && isPublicPath("/settings/login"));
  assert.ok(!isPublicPath("/api/trpc/runs.list") && !isPublicPath("/runs") && !isPublicPath("/settings"));
  assert.equal(safeNextPath("/runs/abc"), "/runs/abc");
  assert.equal(safeNextPath("/runs?tag=a%20b#chart"), "/runs?tag=a%20b#chart");
  for (const evil of [
    "//evil.example",
    "https://evil.example",
    "/\t/127.0.0.1:3932/pwned",
    "/\\/evil.example",
    "/\n/evil.example",
    "javascript:alert(1)",
  ]) {
    assert.equal(safeNextPath(evil), "/", JSON.stringify(evil));
  }
  assert.equal(safeNextPath("/\\runs"), "/runs", "a backslash is removed, not read as a slash");
  assert.equal(safeNextPath("/runs/\u00e9"), "/runs/%C3%A9", "encoded for the Location header");
  assert.equal(safeNextPath(undefined), "/");
});

test("next= is normalised before it is checked: dot segments and encoded dots never leave a protocol-relative path", () => {
  // Each of these resolves (dot segments removed, %2e read as ".") to a path starting "//", which a browser takes as
  // another host when it is the Location of a redirect.
  for (const evil of [
    "/.//evil.example",
    "/a/..//evil.example",
    "/%2e//evil.example",
    "/%2e%2e//evil.example",
    "/./\\/evil.example",
    "/.%2f/evil",
  ]) {
    const got = safeNextPath(evil);
    assert.ok(!got.startsWith("//") && !got.startsWith("/\\"), `${JSON.stringify(evil)} -> ${got}`);
    assert.equal(new URL(got, "https://rl.example").host, "rl.example", JSON.stringify(evil));
  }
  assert.equal(safeNextPath("/runs/./abc/../def"), "/runs/def", "ordinary dot segments still resolve");
});
