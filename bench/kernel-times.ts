/** tf.profile's kernels summed by kernel name (bench:matmul and bench:trainer --profile print where a step goes). */
import type * as tf from "@tensorflow/tfjs";

export interface KernelTime {
  ms: number;
  calls: number;
}

type ProfileInfo = Awaited<ReturnType<typeof tf.profile>>;

export function kernelTimesByName(info: ProfileInfo): Map<string, KernelTime> {
  return sumBy(info, (k) => k.name);
}

/** The same by kernel and input shapes ("BatchMatMul [512,896] [151936,896]"): which products of a family cost. */
export function kernelTimesByShape(info: ProfileInfo): Map<string, KernelTime> {
  return sumBy(info, (k) => `${k.name} ${k.inputShapes.map((s) => `[${s ?? ""}]`).join(" ")}`);
}

function sumBy(info: ProfileInfo, key: (k: ProfileInfo["kernels"][number]) => string): Map<string, KernelTime> {
  const byName = new Map<string, KernelTime>();
  for (const k of info.kernels) {
    const name = key(k);
    const e = byName.get(name) ?? { ms: 0, calls: 0 };
    e.ms += typeof k.kernelTimeMs === "number" ? k.kernelTimeMs : 0;
    e.calls++;
    byName.set(name, e);
  }
  return byName;
}
