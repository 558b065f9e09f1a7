/** τ²'s airline domain behind the domain interface (its pieces: airline-models, airline-tools, airline-tool-schemas). */
import { createHash } from "node:crypto";
import { pythonJsonDumps } from "../../../lib/python-json";
import { deepMerge, isObject, type Tau2DomainTools } from "./domain";
import { AIRLINE_TABLES, RECORD_MODELS, airlineDbHash, validateFlightDb, type AirlineTable, type FlightDb } from "./airline-models";
import { AIRLINE_TOOL_SCHEMAS } from "./airline-tool-schemas";
import { airlineToolKind, runAirlineTool, type AirlineWork } from "./airline-tools";

export { AIRLINE_TABLES };

const noneOwned = (): AirlineWork["owned"] => ({ flights: new Set(), users: new Set(), reservations: new Set() });

/** The records either copy has written, per table, in a stable order. */
function touched(a: AirlineWork, b: AirlineWork): [AirlineTable, string[]][] {
  return AIRLINE_TABLES.map((t) => [t, [...new Set([...a.owned[t], ...b.owned[t]])].sort()]);
}

function pick(w: AirlineWork, ids: [AirlineTable, string[]][]): Record<string, Record<string, unknown>> {
  return Object.fromEntries(ids.map(([t, list]) => [t, Object.fromEntries(list.map((id) => [id, w.db[t][id] ?? null]))]));
}

function digest(w: AirlineWork, ids: [AirlineTable, string[]][]): string {
  const h = createHash("sha256");
  for (const [t, list] of ids)
    for (const id of list) h.update(`${t}\0${id}\0${pythonJsonDumps(w.db[t][id] ?? null, RECORD_MODELS[t], { sortKeys: true })}\0`);
  return h.digest("hex");
}

export const airlineDomain: Tau2DomainTools<FlightDb, AirlineWork> = {
  name: "airline",
  agentRole: "You are a customer service agent of an airline. Help the user following the policy below.",
  toolSchemas: AIRLINE_TOOL_SCHEMAS,
  validateDb: validateFlightDb,
  // Tables are copied shallowly (a few hundred keys); records are cloned on first write (airline-tools).
  fork: (db) => ({ db: { flights: { ...db.flights }, users: { ...db.users }, reservations: { ...db.reservations } }, owned: noneOwned() }),
  runTool: runAirlineTool,
  isWriteTool: (name) => airlineToolKind(name) === "write",
  hash: (w) => airlineDbHash(w.db),
  compare(final, expected) {
    // Records neither copy wrote are the shared originals, so only written ones can differ.
    const ids = touched(final, expected);
    const finalHash = digest(final, ids);
    const expectedHash = digest(expected, ids);
    return { same: finalHash === expectedHash, finalHash, expectedHash, finalState: pick(final, ids), expectedState: pick(expected, ids) };
  },
  initialize(w, data) {
    if (!isObject(data)) return;
    for (const [table, records] of Object.entries(data)) {
      if (!(AIRLINE_TABLES as readonly string[]).includes(table) || !isObject(records))
        throw new Error(`airline initialization data can change flights, users and reservations only (got "${table}")`);
      const t = table as AirlineTable;
      const rows = w.db[t] as Record<string, unknown>;
      for (const [id, update] of Object.entries(records)) {
        if (isObject(rows[id]) && isObject(update)) {
          rows[id] = structuredClone(rows[id]);
          deepMerge(rows[id] as Record<string, unknown>, update);
        } else rows[id] = structuredClone(update);
        w.owned[t].add(id);
      }
    }
  },
};
