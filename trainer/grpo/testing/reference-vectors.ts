/**
 * Test-only loader for the GRPO reference vectors (plain-python float64 transcriptions of verl, TRL, UserRL and
 * DAPO code): ../shared/reference/grpo-vectors.json when present, else the copy vendored in tests/fixtures/shared.
 */
import { readFileSync } from "node:fs";
import assert from "node:assert/strict";
import type * as tf from "@tensorflow/tfjs";
import { sharedData } from "../../../tests/fixtures/shared-data";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export const REFERENCE_TOLERANCE = 1e-5;

export function loadReferenceVectors(): JsonObject {
  return JSON.parse(readFileSync(sharedData("reference/grpo-vectors.json").dir, "utf8")) as JsonObject;
}

export function asObject(value: Json | undefined, what: string): JsonObject {
  assert.ok(value !== null && typeof value === "object" && !Array.isArray(value), `${what} should be an object`);
  return value as JsonObject;
}

export function asNumbers(value: Json | undefined): number[] {
  assert.ok(Array.isArray(value));
  return value.map((v) => v as number);
}

export function asMatrix(value: Json | undefined): number[][] {
  assert.ok(Array.isArray(value));
  return value.map((row) => asNumbers(row));
}

/** |actual - expected| <= tol elementwise, with a message naming the case and the index. */
export function assertClose(actual: number, expected: number, what: string, tol = REFERENCE_TOLERANCE): void {
  assert.ok(Number.isFinite(actual), `${what}: got non-finite ${actual}, expected ${expected}`);
  assert.ok(Math.abs(actual - expected) <= tol, `${what}: got ${actual}, expected ${expected} (|diff| > ${tol})`);
}

export function assertAllClose(actual: readonly number[], expected: readonly number[], what: string, tol?: number) {
  assert.equal(actual.length, expected.length, `${what}: length`);
  actual.forEach((a, i) => assertClose(a, expected[i], `${what}[${i}]`, tol));
}

export function assertMatrixClose(actual: number[][], expected: number[][], what: string, tol?: number) {
  assert.equal(actual.length, expected.length, `${what}: rows`);
  actual.forEach((row, b) => assertAllClose(row, expected[b], `${what}[${b}]`, tol));
}

const DOC_KEYS = new Set(["formula", "cite", "cites", "note", "notes", "description"]);

/** Calls handler for each non-documentation key; the handler returns false for keys it does not know. */
export function forEachKey(obj: JsonObject, where: string, handler: (key: string, value: Json) => boolean) {
  for (const [key, value] of Object.entries(obj)) {
    if (DOC_KEYS.has(key)) continue;
    assert.ok(handler(key, value), `${where}: unhandled key "${key}" — add a check for it`);
  }
}

export const read2d = (t: tf.Tensor) => t.arraySync() as number[][];
export const readScalar = (t: tf.Tensor) => t.dataSync()[0];
