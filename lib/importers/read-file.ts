/**
 * One input file for an importer, from the CLI (node:fs) or the upload page (a browser File): text formats as text,
 * Parquet (TRL's completion logs) and pickles (SkyRL's training batches, skyrl-batch.ts) decoded here into one JSON
 * object per line, so every importer reads text. Parquet's 64-bit integers arrive as BigInt and become numbers
 * (steps and counts fit a double).
 */
import { parquetReadObjects } from "hyparquet";
import type { ImportFile } from "./types";
import { skyrlBatchToJsonLines } from "./skyrl-batch";

export interface FileSource {
  text(): Promise<string>;
  arrayBuffer(): Promise<ArrayBuffer>;
}

const plain = (v: unknown): unknown => (typeof v === "bigint" ? Number(v) : v);

export async function parquetToJsonLines(bytes: ArrayBuffer): Promise<string> {
  const rows = await parquetReadObjects({ file: bytes });
  return rows.map((row) => JSON.stringify(row, (_key, value: unknown) => plain(value))).join("\n");
}

export async function readImportFile(path: string, source: FileSource): Promise<ImportFile> {
  if (/\.pkl$/i.test(path)) {
    try {
      return { path, text: skyrlBatchToJsonLines(new Uint8Array(await source.arrayBuffer())) };
    } catch (err) {
      return { path, text: "", unreadable: `not a readable SkyRL training batch (${(err as Error).message})` };
    }
  }
  if (!/\.parquet$/i.test(path)) return { path, text: await source.text() };
  try {
    return { path, text: await parquetToJsonLines(await source.arrayBuffer()) };
  } catch (err) {
    return { path, text: "", unreadable: `not a readable Parquet file (${(err as Error).message})` };
  }
}
