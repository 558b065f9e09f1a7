/**
 * Exact resume with the real pieces (TF.js policy, the deterministic guess-number environment, GRPO update,
 * safetensors checkpoints) on the pure-JS cpu backend; exact-resume-native.test.ts runs the same on the production
 * CPU path (wasm + native kernels).
 */
import { defineExactResumeTest } from "./helpers/exact-resume";

defineExactResumeTest({ database: "rl_resume", backend: "cpu", expectBackend: /^cpu/ });
