/** τ²'s retail domain behind the domain interface (its pieces: retail-db, retail-tools, retail-models). */
import { deepMerge, isObject, type Tau2DomainTools } from "./domain";
import { digestRecords, forkDb, ownRecord, pickRecords, touchedIds, validateRetailDb, type RetailDb, type WorkingDb } from "./retail-db";
import { tau2DbHash } from "./retail-models";
import { RETAIL_TOOL_SCHEMAS } from "./retail-tool-schemas";
import { retailToolKind, runRetailTool } from "./retail-tools";

export const RETAIL_TABLES = ["products", "users", "orders"] as const;

export const retailDomain: Tau2DomainTools<RetailDb, WorkingDb> = {
  name: "retail",
  agentRole: "You are a customer service agent of an online retail store. Help the customer following the policy below.",
  toolSchemas: RETAIL_TOOL_SCHEMAS,
  validateDb: validateRetailDb,
  fork: forkDb,
  runTool: runRetailTool,
  isWriteTool: (name) => retailToolKind(name) === "write",
  hash: (w) => tau2DbHash(w.db),
  compare(final, expected) {
    // Only records touched by either copy can differ; those are what the inspector diffs.
    const ids = touchedIds(final, expected);
    const finalHash = digestRecords(final, ids);
    const expectedHash = digestRecords(expected, ids);
    return {
      same: finalHash === expectedHash,
      finalHash,
      expectedHash,
      finalState: pickRecords(final, ids),
      expectedState: pickRecords(expected, ids),
    };
  },
  initialize(w, data) {
    if (!isObject(data)) return;
    for (const [table, records] of Object.entries(data)) {
      if ((table !== "users" && table !== "orders") || !isObject(records)) {
        throw new Error(`retail initialization data can change users and orders only (got "${table}")`);
      }
      for (const [id, update] of Object.entries(records)) {
        const own = ownRecord(w, table, id) as Record<string, unknown> | undefined;
        if (own && isObject(update)) deepMerge(own, update);
        else (w.db[table] as Record<string, unknown>)[id] = structuredClone(update);
        w.touched[table].add(id);
      }
    }
  },
};
