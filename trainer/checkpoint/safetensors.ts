/**
 * The safetensors format (huggingface/safetensors docs): 8-byte little-endian header length N, N bytes of JSON
 * `{name: {dtype, shape, data_offsets: [begin, end]}, "__metadata__": {string: string}}`, then the raw little-endian
 * tensor bytes, offsets relative to the end of the header. Written by hand (no dependency) so PyTorch / transformers
 * read our checkpoints with `safetensors.torch.load_file` and we read theirs. Floating types (F16, BF16, F64) are
 * converted to float32 on read, since the TF.js policy computes in float32.
 */
import { MAX_WEIGHT_FILE_BYTES, readDataBytes } from "../data-roots";

export type SafeDtype = "F32" | "F16" | "BF16" | "F64" | "I32" | "I64" | "U8" | "BOOL";

export interface SafeTensor {
  dtype: SafeDtype;
  shape: number[];
  /** Float32Array for every floating dtype (converted), Int32Array for I32/I64 (I64 must fit), Uint8Array else. */
  data: Float32Array | Int32Array | Uint8Array;
}

export class SafetensorsError extends Error {
  readonly code = "SAFETENSORS_INVALID";
  constructor(file: string, detail: string) {
    super(`${file}: ${detail}`);
    this.name = "SafetensorsError";
  }
}

const BYTES: Record<SafeDtype, number> = { F32: 4, F16: 2, BF16: 2, F64: 8, I32: 4, I64: 8, U8: 1, BOOL: 1 };

/** Serialises tensors (F32 / I32 / U8 as given) with optional string metadata. Header padded to 8 bytes. */
export function encodeSafetensors(tensors: Map<string, SafeTensor>, metadata: Record<string, string> = {}): Buffer {
  const header: Record<string, unknown> = {};
  if (Object.keys(metadata).length) header.__metadata__ = metadata;
  let offset = 0;
  const parts: Buffer[] = [];
  for (const [name, t] of tensors) {
    const numel = t.shape.reduce((a, b) => a * b, 1);
    if (t.data.length !== numel) throw new Error(`tensor ${name}: ${t.data.length} values for shape [${t.shape}]`);
    const bytes = Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength);
    header[name] = { dtype: t.dtype, shape: t.shape, data_offsets: [offset, offset + bytes.length] };
    parts.push(bytes);
    offset += bytes.length;
  }
  let json = JSON.stringify(header);
  json += " ".repeat((8 - (Buffer.byteLength(json) % 8)) % 8);
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(Buffer.byteLength(json)));
  return Buffer.concat([len, Buffer.from(json), ...parts]);
}

function f16ToF32(h: number): number {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const f = h & 0x3ff;
  if (e === 0) return s * 2 ** -14 * (f / 1024);
  if (e === 31) return f ? NaN : s * Infinity;
  return s * 2 ** (e - 15) * (1 + f / 1024);
}

function convert(bytes: Buffer, dtype: SafeDtype, numel: number): SafeTensor["data"] {
  const copy = new Uint8Array(bytes); // aligned copy
  const dv = new DataView(copy.buffer);
  switch (dtype) {
    case "F32":
      return new Float32Array(copy.buffer, 0, numel);
    case "F64":
      return Float32Array.from(new Float64Array(copy.buffer, 0, numel));
    case "F16": {
      const out = new Float32Array(numel);
      for (let i = 0; i < numel; i++) out[i] = f16ToF32(dv.getUint16(i * 2, true));
      return out;
    }
    case "BF16": {
      // bfloat16 is the top half of a float32
      const out = new Float32Array(numel);
      const u = new Uint32Array(out.buffer);
      for (let i = 0; i < numel; i++) u[i] = dv.getUint16(i * 2, true) << 16;
      return out;
    }
    case "I32":
      return new Int32Array(copy.buffer, 0, numel);
    case "I64": {
      const out = new Int32Array(numel);
      for (let i = 0; i < numel; i++) {
        const v = dv.getBigInt64(i * 8, true);
        // Stored as Int32 (TF.js has no int64): a value outside its range would silently wrap, so refuse it.
        if (v > 2147483647n || v < -2147483648n) throw new RangeError(`I64 value ${v} at index ${i} does not fit in 32 bits`);
        out[i] = Number(v);
      }
      return out;
    }
    default:
      return copy;
  }
}

export function decodeSafetensors(buf: Buffer, file = "<buffer>"): { metadata: Record<string, string>; tensors: Map<string, SafeTensor> } {
  if (buf.length < 8) throw new SafetensorsError(file, "file is shorter than the 8-byte header length");
  const n = Number(buf.readBigUInt64LE(0));
  if (8 + n > buf.length) throw new SafetensorsError(file, `header length ${n} runs past the end of the file (${buf.length} bytes)`);
  let header: Record<string, { dtype: SafeDtype; shape: number[]; data_offsets: [number, number] } | Record<string, string>>;
  try {
    header = JSON.parse(buf.subarray(8, 8 + n).toString("utf8"));
  } catch (e) {
    throw new SafetensorsError(file, `header is not JSON (${(e as Error).message})`);
  }
  const base = 8 + n;
  const tensors = new Map<string, SafeTensor>();
  let metadata: Record<string, string> = {};
  for (const [name, entry] of Object.entries(header)) {
    if (name === "__metadata__") {
      metadata = entry as Record<string, string>;
      continue;
    }
    const e = entry as { dtype: SafeDtype; shape: number[]; data_offsets: [number, number] };
    // Own keys only: "constructor" or "toString" are not dtypes.
    if (typeof e.dtype !== "string" || !Object.hasOwn(BYTES, e.dtype))
      throw new SafetensorsError(file, `tensor ${name} has unsupported dtype ${String(e.dtype)}`);
    if (!Array.isArray(e.shape) || !e.shape.every((d) => Number.isSafeInteger(d) && d >= 0)) {
      throw new SafetensorsError(file, `tensor ${name}: shape must be a list of non-negative integers`);
    }
    const numel = e.shape.reduce((a, b) => a * b, 1);
    const [begin, end] = Array.isArray(e.data_offsets) ? e.data_offsets : [NaN, NaN];
    if (
      !Number.isSafeInteger(begin) ||
      !Number.isSafeInteger(end) ||
      begin < 0 ||
      end < begin ||
      end - begin !== numel * BYTES[e.dtype] ||
      base + end > buf.length
    ) {
      throw new SafetensorsError(file, `tensor ${name}: data_offsets [${begin}, ${end}] do not fit ${e.dtype}[${e.shape}]`);
    }
    const floating = ["F32", "F16", "BF16", "F64"].includes(e.dtype);
    let data: SafeTensor["data"];
    try {
      data = convert(buf.subarray(base + begin, base + end), e.dtype, numel);
    } catch (err) {
      throw new SafetensorsError(file, `tensor ${name}: ${(err as Error).message}`);
    }
    tensors.set(name, { dtype: floating ? "F32" : e.dtype, shape: e.shape, data });
  }
  return { metadata, tensors };
}

export async function readSafetensors(file: string) {
  return decodeSafetensors(await readDataBytes(file, MAX_WEIGHT_FILE_BYTES), file);
}
