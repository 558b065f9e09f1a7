/**
 * Reaching tRPC procedures by their dotted path: the input zod schema (for query typing and the OpenAPI document)
 * and a call through the server-side caller (so the procedure's own input validation and error mapping run).
 */
import { z } from "zod";
import { appRouter, createCaller } from "../api/root";
import { createTrpcContext } from "../api/trpc";
import type { PrismaClient } from "../../db/client";

interface ProcedureDef {
  _def: { inputs: unknown[]; type: "query" | "mutation" | "subscription" };
}

function procedureDef(path: string): ProcedureDef {
  // tRPC v11 keeps a flat record of procedures by dotted path on the router definition; trpc-to-openapi reads the
  // same field. Checked for every REST route by server/rest/routes.test.ts.
  const procedures = (appRouter._def as unknown as { procedures: Record<string, ProcedureDef | undefined> }).procedures;
  const def = procedures[path];
  if (!def) throw new Error(`REST route names an unknown tRPC procedure "${path}"`);
  return def;
}

export function procedureInput(path: string): z.ZodType {
  const input = procedureDef(path)._def.inputs[0];
  if (!(input instanceof z.ZodType)) throw new Error(`tRPC procedure "${path}" has no zod input schema`);
  return input;
}

export function procedureType(path: string): "query" | "mutation" | "subscription" {
  return procedureDef(path)._def.type;
}

export async function callProcedure(db: PrismaClient, path: string, input: unknown): Promise<unknown> {
  let target: unknown = createCaller(createTrpcContext(db));
  for (const key of path.split(".")) target = (target as Record<string, unknown>)[key];
  return (target as (input: unknown) => Promise<unknown>)(input);
}
