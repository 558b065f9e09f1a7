/**
 * What the run page says about the backend a run trains on (the worker records it on the run): the CPU paths
 * without the native OpenBLAS kernels train 5–7× slower and sample 2–4× slower (docs/cpu-training.md, bench:trainer), which a
 * user should hear about before waiting on a slow run, with the fix.
 */
import { withoutFilePaths } from "./error-text";
/** Index of the first "; " outside parentheses (a stock-kernel reason in parentheses may hold its own "; "). */
function topLevelSemicolon(text: string): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "(") depth++;
    else if (text[i] === ")") depth = Math.max(0, depth - 1);
    else if (depth === 0 && text.startsWith("; ", i)) return i;
  }
  return -1;
}

/**
 * The run page's Backend fact from what the worker recorded ("<backend><kernels>; <why>"): a short summary and the
 * reasons beneath it, with server file paths cut to file names (runs recorded before the trainer stopped writing
 * them still carry "imported from /…/select.ts").
 */
export function describeBackend(backend: string): { summary: string; detail: string | null } {
  const text = withoutFilePaths(backend);
  const cut = topLevelSemicolon(text);
  const head = cut < 0 ? text : text.slice(0, cut);
  const why = cut < 0 ? null : text.slice(cut + 2);
  const stock = /^(\w+) \(stock kernels: (.*)\)$/.exec(head);
  if (!stock) return { summary: head, detail: why };
  return { summary: `${stock[1]}, stock kernels`, detail: [`no native kernels: ${stock[2]}`, why].filter(Boolean).join("; ") };
}

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
