/**
 * The safetensors format (huggingface/safetensors docs): 8-byte little-endian header length N, N bytes of JSON
 * `{name: {dtype, shape, data_offsets: [begin, end]}, "__metadata__": {string: string}}`, then the raw little-endian
 * tensor bytes, offsets relative to the end of the header. Written by hand (no dependency) so PyTorch / transformers
 * read our checkpoints with `safetensors.torch.load_file` and we read theirs. Floating types (F16, BF16, F64) are
 * converted to float32 on read, since the TF.js policy computes in float32; on write, float32 data labelled BF16 or F16
 * is rounded to that type (to nearest, ties to even, as torch's `.to(torch.bfloat16)` does).
 */
import { promises as fs } from "node:fs";
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

const f32 = new Float32Array(1);
const f32Bits = new Uint32Array(f32.buffer);

/** float32 -> bfloat16 bits, rounded to nearest even (NaN stays a quiet NaN). */
export function bf16Bits(x: number): number {
  f32[0] = x;
  const u = f32Bits[0];
  if (Number.isNaN(x)) return ((u >>> 16) | 0x40) & 0xffff;
  return ((u + 0x7fff + ((u >>> 16) & 1)) >>> 16) & 0xffff;
}

/** float32 -> IEEE half bits, rounded to nearest even; overflow to ±Infinity, subnormals kept. */
export function f16Bits(x: number): number {
  f32[0] = x;
  const u = f32Bits[0];
  const sign = (u >>> 16) & 0x8000;
  const exp = (u >>> 23) & 0xff;
  const mant = u & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    const m = mant | 0x800000; // implicit leading one
    const shift = 14 - e;
    const half = 1 << (shift - 1);
    const rest = m & ((1 << shift) - 1);
    let out = m >>> shift;
    if (rest > half || (rest === half && out & 1)) out++;
    return sign | out;
  }
  let out = (e << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && out & 1)) out++; // a carry into the exponent is the right rounding
  return sign | out;
}

/** The bytes a tensor is stored as: float32 data labelled BF16 / F16 rounded to 16 bits, else its own buffer. */
function storedBytes(t: SafeTensor): Buffer {
  if ((t.dtype === "BF16" || t.dtype === "F16") && t.data instanceof Float32Array) {
    const round = t.dtype === "BF16" ? bf16Bits : f16Bits;
    const out = new Uint16Array(t.data.length);
    for (let i = 0; i < out.length; i++) out[i] = round(t.data[i]);
    return Buffer.from(out.buffer);
  }
  return Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength);
}

/**
 * Serialises tensors with optional string metadata (F32 / I32 / U8 as given; float32 data labelled BF16 or F16
 * rounded to it). Header padded to 8 bytes.
 */
export function encodeSafetensors(tensors: Map<string, SafeTensor>, metadata: Record<string, string> = {}): Buffer {
  const header: Record<string, unknown> = {};
  if (Object.keys(metadata).length) header.__metadata__ = metadata;
  let offset = 0;
  const parts: Buffer[] = [];
  for (const [name, t] of tensors) {
    const numel = t.shape.reduce((a, b) => a * b, 1);
    if (t.data.length !== numel) throw new Error(`tensor ${name}: ${t.data.length} values for shape [${t.shape}]`);
    const bytes = storedBytes(t);
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

export function f16ToF32(h: number): number {
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

/** The dtype of every tensor of a safetensors file, from its header alone (the data is not read). */
export async function readSafetensorsDtypes(file: string): Promise<Map<string, SafeDtype>> {
  const fh = await fs.open(file, "r");
  try {
    const len = Buffer.alloc(8);
    await fh.read(len, 0, 8, 0);
    const n = Number(len.readBigUInt64LE(0));
    const { size } = await fh.stat();
    if (8 + n > size) throw new SafetensorsError(file, `header length ${n} runs past the end of the file (${size} bytes)`);
    const text = Buffer.alloc(n);
    await fh.read(text, 0, n, 8);
    let header: Record<string, { dtype?: SafeDtype }>;
    try {
      header = JSON.parse(text.toString("utf8"));
    } catch (e) {
      throw new SafetensorsError(file, `header is not JSON (${(e as Error).message})`);
    }
    const out = new Map<string, SafeDtype>();
    for (const [name, entry] of Object.entries(header)) if (name !== "__metadata__" && entry.dtype) out.set(name, entry.dtype);
    return out;
  } finally {
    await fh.close();
  }
}
