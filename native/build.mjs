#!/usr/bin/env node
/**
 * Builds the OpenBLAS TF.js kernels addon (native/blas) when the machine can, and otherwise prints one line and
 * exits 0, so `npm install` never fails because of it (the trainer then uses the stock TF.js kernels).
 *
 * Needs: OpenBLAS headers + library (Debian: apt-get install libopenblas-dev), Node's headers (a `nodedir` with
 * include/node/node_api.h — never downloaded here), and node-gyp (the copy bundled with npm).
 *   node native/build.mjs            build if possible, else skip with one line
 *   node native/build.mjs --strict   exit 1 instead of skipping (CI that must test the native path)
 *   ROLLOUT_LAB_SKIP_NATIVE=1        skip on purpose
 * Optional: oneDNN (Debian: apt-get install libdnnl-dev) for `policy.compute: "bf16"`; without it the addon builds
 * all the same and bf16 compute reports itself unavailable.
 */
import { spawnSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const addonDir = path.join(here, "blas");
const strict = process.argv.includes("--strict");

function skip(why) {
  console.log(`native BLAS kernels skipped: ${why} (TF.js stock kernels will be used)`);
  process.exit(strict ? 1 : 0);
}

function multiarch() {
  const r = spawnSync("gcc", ["-print-multiarch"], { encoding: "utf8" });
  return r.status === 0 ? r.stdout.trim() : "";
}

function findCblasDir() {
  const arch = multiarch();
  const candidates = [
    process.env.OPENBLAS_INCLUDE_DIR,
    arch && `/usr/include/${arch}`,
    "/usr/include/openblas",
    "/usr/include",
    "/usr/local/include",
    "/usr/local/opt/openblas/include",
    "/opt/homebrew/opt/openblas/include",
  ].filter(Boolean);
  return candidates.find((d) => existsSync(path.join(d, "cblas.h")) && existsSync(path.join(d, "openblas_config.h")));
}

function findNodeDir() {
  const candidates = [process.env.npm_config_nodedir, path.resolve(path.dirname(process.execPath), "..")].filter(Boolean);
  return candidates.find((d) => existsSync(path.join(d, "include", "node", "node_api.h")));
}

function findNodeGyp() {
  const prefix = path.resolve(path.dirname(process.execPath), "..");
  const candidates = [
    process.env.npm_config_node_gyp,
    path.join(prefix, "lib", "node_modules", "npm", "node_modules", "node-gyp", "bin", "node-gyp.js"),
    path.join(path.dirname(process.execPath), "node_modules", "npm", "node_modules", "node-gyp", "bin", "node-gyp.js"),
  ].filter(Boolean);
  const found = candidates.find((f) => existsSync(f));
  if (found) return found;
  try {
    return createRequire(import.meta.url).resolve("node-gyp/bin/node-gyp.js");
  } catch {
    return undefined;
  }
}

if (process.env.ROLLOUT_LAB_SKIP_NATIVE === "1") skip("ROLLOUT_LAB_SKIP_NATIVE=1");
const cblasDir = findCblasDir();
if (!cblasDir) skip("OpenBLAS headers not found (Debian/Ubuntu: apt-get install libopenblas-dev)");
const nodeDir = findNodeDir();
if (!nodeDir) skip("Node headers (include/node/node_api.h) not found and they are never downloaded");
const nodeGyp = findNodeGyp();
if (!nodeGyp) skip("node-gyp not found");

/** oneDNN's C header and library, for the bf16 matmul (native/blas/src/gemm_onednn.c); optional. */
function findDnnl() {
  if (process.env.ROLLOUT_LAB_NO_DNNL === "1") return false;
  const arch = multiarch();
  const header = ["/usr/include/oneapi/dnnl/dnnl.h", "/usr/local/include/oneapi/dnnl/dnnl.h"].some((f) => existsSync(f));
  const lib = [arch && `/usr/lib/${arch}/libdnnl.so`, "/usr/lib/libdnnl.so", "/usr/local/lib/libdnnl.so"].some((f) => f && existsSync(f));
  return header && lib;
}
const haveDnnl = findDnnl();

const log = path.join(addonDir, "build.log");
const r = spawnSync(process.execPath, [nodeGyp, "rebuild", `--nodedir=${nodeDir}`], {
  cwd: addonDir,
  encoding: "utf8",
  env: { ...process.env, OPENBLAS_INCLUDE_DIR: cblasDir, ROLLOUT_LAB_HAVE_DNNL: haveDnnl ? "1" : "0" },
});
writeFileSync(log, `${r.stdout ?? ""}\n${r.stderr ?? ""}`);
if (r.status !== 0) skip(`node-gyp failed (see ${path.relative(process.cwd(), log)})`);

// A library that links but cannot run (wrong OpenBLAS, missing symbol) must not be left for the trainer to load.
const file = path.join(addonDir, "build", "Release", "blas.node");
const check = spawnSync(
  process.execPath,
  [
    "-e",
    `const b = require(${JSON.stringify(file)}); const o = new Float32Array(1);
     b.gemm(1, 0, 0, 1, 1, 2, new Float32Array([2, 3]), 0, 0, new Float32Array([4, 5]), 0, 0, o, 0);
     if (o[0] !== 23) throw new Error("2x4+3x5 gave " + o[0]); console.log(b.config().trim(), "|", b.threads(), "|", b.computeLibrary());`,
  ],
  { encoding: "utf8" },
);
if (check.status !== 0) {
  spawnSync(process.execPath, [nodeGyp, "clean"], { cwd: addonDir });
  skip(`built addon failed its self-check (${(check.stderr || "").split("\n").find((l) => l.includes("Error")) ?? "crashed"})`);
}
const [config, threads, bf16Library] = check.stdout.trim().split(" | ");
console.log(
  `native BLAS kernels built: ${path.relative(process.cwd(), file)} (${config}, ${threads} threads; bf16 compute: ${bf16Library})`,
);
