/**
 * The shape every BFCL API class takes here. BFCL instantiates one Python object per involved class, loads its
 * `initial_config` entry, and exposes its public methods as functions; the state checker then compares the
 * object's public (non-underscore) attributes with those of a ground-truth instance. `state()` returns exactly those
 * attributes as JSON, and each method declares its Python signature so positional arguments bind the same way.
 */
import { cloneKeepingKeyOrder } from "../../../../lib/ordered-json";

/** A parameter: its name, and its default when optional. */
export type Param = string | [name: string, defaultValue: unknown];

export interface ApiMethod {
  params: Param[];
  run(args: Record<string, unknown>): unknown;
}

export interface ApiInstance {
  readonly className: string;
  methods: Record<string, ApiMethod>;
  /** Public attributes, as BFCL's state checker sees them. */
  state(): unknown;
}

/** Raised for what Python would raise (ValueError, KeyError, TypeError): shown as "Error during execution: ...". */
export class ApiError extends Error {}

export function method(params: Param[], run: (args: Record<string, unknown>) => unknown): ApiMethod {
  return { params, run };
}

export function num(v: unknown, name: string): number {
  if (typeof v === "number" && Number.isFinite(v)) return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  throw new ApiError(`argument '${name}' must be a number, got ${JSON.stringify(v)}`);
}

export function str(v: unknown, name: string): string {
  if (typeof v === "string") return v;
  throw new ApiError(`argument '${name}' must be a string, got ${JSON.stringify(v)}`);
}

export function list<T = unknown>(v: unknown, name: string): T[] {
  if (Array.isArray(v)) return v as T[];
  throw new ApiError(`argument '${name}' must be a list, got ${JSON.stringify(v)}`);
}

/**
 * `config.key ?? default`, deep-copied so instances never share mutable state with the task or each other (dicts
 * keep the key order the data file gave them, which Python keeps and JavaScript does not for integer-like keys).
 */
export function initial<T>(config: Record<string, unknown>, key: string, fallback: T): T {
  return cloneKeepingKeyOrder(key in config ? (config[key] as T) : fallback);
}
