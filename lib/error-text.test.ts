import { test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { firstLine, parseOptions, untrustedExcerpt, withoutFilePaths } from "./error-text";

test("the first line is the first one with text, so a run error is never empty or a lone '['", () => {
  assert.equal(firstLine(new Error("\nInvalid `prisma.run.update()` invocation:\n\ndetails")), "Invalid `prisma.run.update()` invocation:");
  assert.equal(firstLine(new Error("boom\n    at x.ts:1")), "boom");
  assert.equal(firstLine("x".repeat(600)).length, 501);
  assert.equal(firstLine(new TypeError("")), "TypeError");
});

test("invalid options become one line naming every field", () => {
  const schema = z.object({ max: z.number().max(10), name: z.string() }).strict();
  assert.throws(
    () => parseOptions(schema, { max: 20, extra: 1 }, "guess options"),
    (e: Error) => {
      assert.doesNotMatch(e.message, /\n/);
      assert.match(e.message, /^Invalid guess options: .*max: Too big.*name: .*options: Unrecognized key/);
      return true;
    },
  );
});

test("an untrusted body becomes a short excerpt without markup or control characters", () => {
  const html = `<!DOCTYPE html><html><head><style>body{color:red}</style><script>alert(1)</script></head><body><h1>404</h1>\u0007This page could not be found.${"x".repeat(9000)}</body></html>`;
  const out = untrustedExcerpt(html);
  assert.ok(out.length <= 200, String(out.length));
  assert.match(out, /^404 This page could not be found\.x+…$/);
  assert.doesNotMatch(out, /[<>\u0000-\u001f]|alert|color/);
  assert.equal(untrustedExcerpt("root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1", 20), "root:x:0:0:root:/ro…");
});

test("file paths in an error keep only their file name", () => {
  assert.equal(
    withoutFilePaths("Cannot find package '@tensorflow/tfjs-node-gpu' imported from /work/wt/x/trainer/backend/select.ts"),
    "Cannot find package '@tensorflow/tfjs-node-gpu' imported from select.ts",
  );
  assert.equal(withoutFilePaths("addon failed (file:///srv/app/native/blas.node: bad ELF)"), "addon failed (blas.node: bad ELF)");
  assert.equal(withoutFilePaths("C:\\app\\native\\blas.node missing"), "blas.node missing");
  // Ratios, versions and package names are not paths.
  assert.equal(
    withoutFilePaths("0.5/1 steps, OpenBLAS 0.3.21, @tensorflow/tfjs/dist 4.22"),
    "0.5/1 steps, OpenBLAS 0.3.21, @tensorflow/tfjs/dist 4.22",
  );
});
