/**
 * Reading the BFCL parity fixtures (tests/fixtures/parity/bfcl-*.json, envtuning-*.json): long texts there are kept
 * as sha256 prefixes, also with integral floats printed as integers (35.0 → 35), the one way this project's results
 * may differ where Python's int/float distinction is not tracked through the API ports.
 */
import { createHash } from "node:crypto";
import path from "node:path";
import { loadBfclDataset, type BfclTaskData } from "../bfcl-format";
import { sharedData } from "../../../../tests/fixtures/shared-data";

export type FixtureText = string | { sha256: string; sha256_int_floats: string; head?: string };

export const REPO = path.resolve(import.meta.dirname, "../../../..");

const sha = (text: string, length: number) => createHash("sha256").update(text).digest("hex").slice(0, length);
/** Integral floats printed as integers (35.0 → 35). */
export const intFloats = (text: string) => text.replace(/(?<![\w.])(-?\d+)\.0(?!\d)/g, "$1");

/** Whether `got` is the fixture's text byte for byte. */
export function sameText(got: string, want: FixtureText): boolean {
  return typeof want === "string" ? got === want : sha(got, want.sha256.length) === want.sha256;
}

/** Whether `got` is the fixture's text once integral floats print as integers on both sides. */
export function sameButIntFloats(got: string, want: FixtureText): boolean {
  return typeof want === "string"
    ? intFloats(got) === intFloats(want)
    : sha(intFloats(got), want.sha256_int_floats.length) === want.sha256_int_floats;
}

export const shownText = (want: FixtureText) =>
  typeof want === "string" ? want : `${want.head ?? ""}… (sha256 ${want.sha256.slice(0, 12)})`;

/** gorilla's full data folder when given; else the 40-entry samples of miss_param, miss_func and long_context. */
export const gorillaDataDir = (): string => process.env.BFCL_GORILLA_DATA ?? path.join(REPO, "tests/fixtures/bfcl-gorilla");

/** base from the shared data (30 vendored entries, all 200 with ../shared), the other categories from gorilla's data. */
export async function loadBfclParityTasks(): Promise<BfclTaskData[]> {
  const base = sharedData("data/bfcl");
  const gorillaData = gorillaDataDir();
  const files = [
    path.join(base.dir, "BFCL_v4_multi_turn_base.json"),
    path.join(gorillaData, "BFCL_v4_multi_turn_miss_param.json"),
    path.join(gorillaData, "BFCL_v4_multi_turn_miss_func.json"),
    path.join(gorillaData, "BFCL_v4_multi_turn_long_context.json"),
  ];
  return (await Promise.all(files.map((f) => loadBfclDataset(f)))).flatMap((i) => i.entries);
}
