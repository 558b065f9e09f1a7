/**
 * Where a tensor's data lives, for the native kernels, on the two CPU backends they serve:
 * - wasm: every tensor is a slice of one heap (a WebAssembly memory), so the addon gets the whole heap and an
 *   offset. The heap is capped at 4 GiB, which is what stops a 100M-parameter model training there.
 * - cpu: every tensor owns a JavaScript typed array (offset 0), allocated outside any wasm heap, so the model is
 *   bounded by RAM. With the native kernels doing the heavy ops in place on those arrays, this is the path for
 *   models past the wasm ceiling (issue #18).
 * Kernels written against this interface run unchanged on both.
 */
import type * as tf from "@tensorflow/tfjs";
import { constants } from "node:buffer";

const MAX_LENGTH = constants.MAX_LENGTH;

type DataId = object;
export type Buffer4 = Float32Array | Int32Array;

export interface KernelMemory {
  /** A new tensor of the given shape, uninitialised: kernels write every element of their outputs. */
  output(shape: number[], dtype: "float32" | "int32"): tf.TensorInfo;
  dispose(t: tf.TensorInfo): void;
  /** Shares t's buffer with a new reference (Identity-like kernels). */
  incRef(t: tf.TensorInfo): void;
  /**
   * The 4-byte array holding t's data and t's offset in it, in elements. On wasm, call it only after every output
   * of the kernel is allocated: an allocation may grow the heap and detach an older view.
   */
  at(t: tf.TensorInfo): [Buffer4, number];
}

interface WasmBackend {
  dataIdMap: { get(id: DataId): { memoryOffset: number } | undefined };
  makeOutput(shape: number[], dtype: tf.DataType): tf.TensorInfo;
  disposeData(id: DataId): void;
  incRef(id: DataId): void;
  wasm: { HEAPF32: Float32Array; HEAP32: Int32Array };
}

interface CpuBackend {
  data: { get(id: DataId): { values?: unknown } | undefined };
  makeTensorInfo(shape: number[], dtype: tf.DataType, values: Buffer4): tf.TensorInfo;
  disposeData(id: DataId): void;
  incRef(id: DataId): void;
}

const sizeOf = (shape: number[]) => shape.reduce((p, d) => p * d, 1);

/**
 * A typed array of n elements whose memory is not zeroed, for an output the kernel overwrites entirely.
 * `new Float32Array(n)` zero-fills (calloc), and a 0.5B training step allocates gigabytes of outputs: the zeroing was a
 * pass over all of them that PyTorch (torch.empty) does not make. Node's unsafe buffers are plain malloc.
 */
export function uninitialisedArray(n: number, dtype: "float32" | "int32"): Buffer4 {
  const bytes = n * 4;
  if (bytes < 4096 || bytes > MAX_LENGTH) return dtype === "int32" ? new Int32Array(n) : new Float32Array(n);
  const buf = Buffer.allocUnsafeSlow(bytes);
  return dtype === "int32" ? new Int32Array(buf.buffer, buf.byteOffset, n) : new Float32Array(buf.buffer, buf.byteOffset, n);
}

function wasmMemory(backend: WasmBackend): KernelMemory {
  return {
    output: (shape, dtype) => backend.makeOutput(shape, dtype),
    dispose: (t) => backend.disposeData(t.dataId),
    incRef: (t) => backend.incRef(t.dataId),
    at(t) {
      const entry = backend.dataIdMap.get(t.dataId);
      if (!entry) throw new Error("tensor data is not on the wasm heap");
      return [backend.wasm.HEAPF32, entry.memoryOffset / 4];
    },
  };
}

function cpuMemory(backend: CpuBackend): KernelMemory {
  return {
    output: (shape, dtype) => backend.makeTensorInfo(shape, dtype, uninitialisedArray(sizeOf(shape), dtype)),
    dispose: (t) => backend.disposeData(t.dataId),
    incRef: (t) => backend.incRef(t.dataId),
    at(t) {
      const values = backend.data.get(t.dataId)?.values;
      if (!(values instanceof Float32Array) && !(values instanceof Int32Array))
        throw new Error(`tensor data of dtype ${t.dtype} is not a 4-byte typed array`);
      return [values, 0];
    },
  };
}

/** The memory view of a backend the native kernels serve; null for any other backend. */
export function kernelMemory(backendName: string, backend: unknown): KernelMemory | null {
  if (backendName === "wasm") return wasmMemory(backend as WasmBackend);
  if (backendName === "cpu") return cpuMemory(backend as CpuBackend);
  return null;
}
