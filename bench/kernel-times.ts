/** tf.profile's kernels summed by kernel name (bench:matmul and bench:trainer --profile print where a step goes). */
import type * as tf from "@tensorflow/tfjs";

export interface KernelTime {
  ms: number;
  calls: number;
}

export function kernelTimesByName(info: Awaited<ReturnType<typeof tf.profile>>): Map<string, KernelTime> {
  const byName = new Map<string, KernelTime>();
  for (const k of info.kernels) {
    const e = byName.get(k.name) ?? { ms: 0, calls: 0 };
    e.ms += typeof k.kernelTimeMs === "number" ? k.kernelTimeMs : 0;
    e.calls++;
    byName.set(k.name, e);
  }
  return byName;
}
