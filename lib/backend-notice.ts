/**
 * What the run page says about the backend a run trains on (the worker records it on the run): the CPU paths
 * without the native OpenBLAS kernels train 5–7× slower and sample 2–4× slower (README, bench:trainer), which a
 * user should hear about before waiting on a slow run, with the fix.
 */
export function slowPathNotice(backend: string | null | undefined): string | null {
  if (!backend) return null;
  if (backend.startsWith("tensorflow")) return null;
  const placedForMemory = backend.includes("more than the wasm heap gives");
  // A run too large for the wasm heap trains on cpu by design; with the native kernels that is its fast path.
  if (backend.startsWith("cpu") && placedForMemory && backend.includes("native OpenBLAS kernels")) return null;
  if (backend.startsWith("cpu") && placedForMemory) {
    return "This run's step does not fit the wasm heap (4 GiB), so it trains on the cpu backend, and without the native OpenBLAS kernels that is the slowest path. Install libopenblas-dev and run npm install (or npm run build:native) on the worker host, then restart the worker.";
  }
  if (backend.startsWith("cpu")) {
    return "This run trains on TensorFlow.js's plain cpu backend, the slowest path (usually forced with ROLLOUT_LAB_BACKEND=cpu). Unset it to use wasm with the native kernels.";
  }
  const stock = /stock kernels: ([^)]*)\)/.exec(backend);
  if (stock) {
    return `This run trains without the native OpenBLAS kernels (${stock[1]}): training is about 6× slower and sampling 2–4× slower. Install libopenblas-dev and run npm install (or npm run build:native) on the worker host, then restart the worker.`;
  }
  return null;
}
