/**
 * Where V8 marks its heap while a policy trains on the cpu backend: on helper threads (V8's default) or on the main
 * thread.
 *
 * On the cpu backend every tensor is a typed array whose memory V8 counts as external, and a training step
 * allocates gigabytes of them: each 64 MB starts a major GC (74 in a 0.5B step). Marked by helper threads, that work
 * competes with the compute threads for the cores and stalls a product split over both; marked on the main thread
 * (incrementally, between kernels) it is cheaper and out of their way. Measured on a 2-core Zen 4 (4 Dec):
 * - 0.5B bf16 step: 10.8-11.3 -> 9.2-10.2 s CPU, 6.3-6.5 -> 5.3-5.8 s wall; fp32: 19.4 -> 17.5 s CPU, 10.2 -> 9.3 s;
 * - 100M: 16.4-19.2 -> 15.8-16.6 s CPU; 25M: 4.2-4.6 -> 3.5-3.7 s CPU, 2.4 -> 1.9 s wall;
 * - but at 1M, where the main thread itself is the bottleneck and the second core idles, batch-8 sampling lost
 *   18-26% and the step gained nothing; peak RSS grew by 160 MB (1M), 800 MB (25M), 570 MB (0.5B fp32).
 * Hence the rule: main-thread marking for a policy of at least 10M parameters on the cpu backend.
 *
 * V8 reads --concurrent-marking each time marking starts, but switching it off while a cycle is under way would leave
 * that cycle's helper-thread bookkeeping half done, so a full GC runs first (none is then in progress) and the flag
 * changes right after, before anything else allocates. It is only ever switched off, once per process.
 * ROLLOUT_LAB_CONCURRENT_MARKING=1 keeps V8's default.
 */
import v8 from "node:v8";
import vm from "node:vm";

export const MAIN_THREAD_MARKING_MIN_PARAMETERS = 10_000_000;

export type HeapMarking = "main-thread" | "concurrent";

/** The marking a policy of `parameters` on `backend` trains best with (see above). */
export function heapMarkingFor(parameters: number, backend: string, env: Record<string, string | undefined> = process.env): HeapMarking {
  if (env.ROLLOUT_LAB_CONCURRENT_MARKING === "1") return "concurrent";
  return backend === "cpu" && parameters >= MAIN_THREAD_MARKING_MIN_PARAMETERS ? "main-thread" : "concurrent";
}

let markingOnMainThread = false;

/** Applies heapMarkingFor's choice to this process; returns a sentence for the run page, or "" when V8's default stays. */
export function useHeapMarkingFor(parameters: number, backend: string, env: Record<string, string | undefined> = process.env): string {
  if (heapMarkingFor(parameters, backend, env) !== "main-thread") {
    // a worker process trains one run after another, and the switch is never undone: say so on a small run's page too
    return markingOnMainThread
      ? "V8 marks its heap on the main thread (switched by an earlier run's 10M+ parameter policy in this worker)."
      : "";
  }
  if (!markingOnMainThread) {
    v8.setFlagsFromString("--expose-gc");
    const collectAll = vm.runInNewContext("gc") as () => void;
    collectAll(); // finishes any marking cycle in progress
    v8.setFlagsFromString("--no-concurrent-marking");
    markingOnMainThread = true;
  }
  return "V8 marks its heap on the main thread (a policy of 10M+ parameters on the cpu backend).";
}
