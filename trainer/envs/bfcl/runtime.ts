/**
 * Executes function calls against the involved API instances the way BFCL's `execute_multi_turn_func_call` does:
 * one instance per involved class (state kept across turns), a call dispatched by method name, arguments bound
 * to the Python signature, the return value formatted as text, and any exception reported as
 * "Error during execution: <message>". Classes not implemented here make the runtime refuse to start.
 */
import { ApiError, type ApiInstance, type Param } from "./apis/api-types";
import { BFCL_API_CLASSES, type ApiOptions } from "./apis";
import { withEnvTuningMessages } from "./apis/envtuning-messages";
import type { PyCall } from "./call-syntax";
import { formatExecutionResult } from "./py-format";
import { canonicalJson } from "./canonical";
import { BuiltinError, isPythonBuiltin, runPythonBuiltin } from "./python-builtins";

export interface Execution {
  name: string;
  args: Record<string, unknown>;
  /** What the policy sees (and the response checker compares). */
  result: string;
  ok: boolean;
}

export class UnsupportedClassError extends Error {}

export interface RuntimeOptions extends ApiOptions {
  /**
   * Whose API classes run: gorilla's (BFCL v4), or AWorld EnvTuning's fork of them — its functions and behaviour
   * (ApiOptions.fork) and its rewritten, actionable error messages (apis/envtuning-messages.ts).
   */
  messages: "gorilla" | "envtuning";
}

/** The runtime of one BFCL entry: its classes, its initial state, and gorilla's long_context flag for its category. */
export function runtimeForEntry(
  entry: { category: string; involvedClasses: string[]; initialConfig: Record<string, unknown> },
  messages: RuntimeOptions["messages"] = "gorilla",
): BfclRuntime {
  // gorilla: long_context = "long_context" in test_category or "composite" in test_category
  const longContext = entry.category.includes("long_context") || entry.category.includes("composite");
  return new BfclRuntime(entry.involvedClasses, entry.initialConfig, { longContext, messages });
}

/** Names the executors refuse before evaluating the call (their guard against shell-like functions). */
const REFUSED = ["kill", "exit", "quit", "remove", "unlink", "popen", "Popen", "run"];

/** What evaluating a call of no API method raises in gorilla's / EnvTuning's executor (`a.b` fails on `a`). */
function unknownCallError(name: string): string {
  const parts = name.split(".");
  const checked = parts.length > 1 ? parts[1] : parts[0];
  if (REFUSED.includes(checked)) return `Function call ${checked} is not allowed.`;
  return `name '${parts[0]}' is not defined`;
}

function paramName(p: Param): string {
  return typeof p === "string" ? p : p[0];
}

export class BfclRuntime {
  private readonly instances = new Map<string, ApiInstance>();
  private readonly owner = new Map<string, ApiInstance>();

  constructor(
    involvedClasses: string[],
    initialConfig: Record<string, unknown>,
    options: RuntimeOptions = { longContext: false, messages: "gorilla" },
  ) {
    for (const cls of involvedClasses) {
      const entry = BFCL_API_CLASSES[cls];
      if (!entry) throw new UnsupportedClassError(`BFCL class "${cls}" is not implemented`);
      const config = (initialConfig[cls] ?? {}) as Record<string, unknown>;
      const created = entry.create(config, { ...options, fork: options.messages === "envtuning" ? "envtuning" : undefined });
      const inst = options.messages === "envtuning" ? withEnvTuningMessages(created) : created;
      this.instances.set(cls, inst);
      // Later classes win on a name clash, as BFCL's name -> instance mapping does.
      for (const m of Object.keys(inst.methods)) this.owner.set(m, inst);
    }
  }

  hasFunction(name: string): boolean {
    return this.owner.has(name);
  }

  /**
   * Binds positional and keyword arguments to the method's signature (defaults filled in), raising what CPython
   * (≥ 3.10) raises for a bound method, in its order: keywords first (unexpected, then given twice), then too many
   * positional arguments, then missing ones — named by qualified name, `self` counted among the positional ones.
   */
  private bind(qualname: string, params: Param[], call: Pick<PyCall, "positional" | "keywords">): Record<string, unknown> {
    const args: Record<string, unknown> = {};
    call.positional.slice(0, params.length).forEach((v, i) => (args[paramName(params[i])] = v));
    for (const [k, v] of Object.entries(call.keywords)) {
      if (!params.some((p) => paramName(p) === k)) throw new ApiError(`${qualname}() got an unexpected keyword argument '${k}'`);
      if (k in args) throw new ApiError(`${qualname}() got multiple values for argument '${k}'`);
      args[k] = v;
    }
    if (call.positional.length > params.length) {
      const total = params.length + 1;
      const defaults = params.filter((p) => typeof p !== "string").length;
      const takes = defaults
        ? `from ${total - defaults} to ${total} positional arguments`
        : `${total} positional argument${total === 1 ? "" : "s"}`;
      throw new ApiError(`${qualname}() takes ${takes} but ${call.positional.length + 1} were given`);
    }
    const missing = params.filter((p) => typeof p === "string" && !(p in args)).map((p) => `'${paramName(p)}'`);
    if (missing.length) {
      const names = missing.length < 3 ? missing.join(" and ") : `${missing.slice(0, -1).join(", ")}, and ${missing.at(-1)}`;
      throw new ApiError(`${qualname}() missing ${missing.length} required positional argument${missing.length > 1 ? "s" : ""}: ${names}`);
    }
    for (const p of params) if (typeof p !== "string" && !(p[0] in args)) args[p[0]] = structuredClone(p[1]);
    return args;
  }

  execute(call: Pick<PyCall, "name" | "positional" | "keywords">): Execution {
    const inst = this.owner.get(call.name);
    if (!inst && isPythonBuiltin(call.name)) {
      // eval runs a built-in the policy calls as a tool (round, print, str…): its value, or Python's error.
      try {
        return { name: call.name, args: call.keywords, result: formatExecutionResult(runPythonBuiltin(call)), ok: true };
      } catch (e) {
        if (!(e instanceof BuiltinError)) throw e;
        return { name: call.name, args: call.keywords, result: `Error during execution: ${e.message}`, ok: false };
      }
    }
    if (!inst) return { name: call.name, args: call.keywords, result: `Error during execution: ${unknownCallError(call.name)}`, ok: false };
    const m = inst.methods[call.name];
    let args: Record<string, unknown> = call.keywords;
    try {
      args = this.bind(`${inst.className}.${call.name}`, m.params, call);
      const value = m.run(args);
      const result = formatExecutionResult(value);
      return { name: call.name, args, result, ok: !(value !== null && typeof value === "object" && "error" in value) };
    } catch (e) {
      // Any exception in a tool is the caller's mistake (bad argument types included), never the episode's end.
      return { name: call.name, args, result: `Error during execution: ${e instanceof Error ? e.message : String(e)}`, ok: false };
    }
  }

  /** Public state of every involved class, keyed by class name. */
  state(): Record<string, unknown> {
    return Object.fromEntries([...this.instances].map(([k, v]) => [k, JSON.parse(canonicalJson(v.state())) as unknown]));
  }

  /** Canonical JSON of each class's public state: equal strings exactly when BFCL's state checker finds no difference. */
  stateStrings(): Record<string, string> {
    return Object.fromEntries([...this.instances].map(([k, v]) => [k, canonicalJson(v.state())]));
  }
}
