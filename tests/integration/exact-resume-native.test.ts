/**
 * Exact resume on the production CPU path: wasm backend with the native OpenBLAS and fused decoder kernels (threaded
 * attention, native decoding, fused AdamW) and the batched sampler — all of it must be deterministic for a resumed
 * run to end bit-identical. Skipped where the addon could not be built (no libopenblas-dev).
 */
import { loadBlasAddon } from "../../trainer/backend/native/addon";
import { defineExactResumeTest } from "./helpers/exact-resume";

const { addon, reason } = loadBlasAddon();
defineExactResumeTest({
  database: "rl_resume_native",
  backend: "wasm",
  expectBackend: /^wasm.*native OpenBLAS kernels/,
  skip: addon ? false : reason,
});
