/** The tau-bench domains TauGym plays: their tables, tools and tool schemas (for `[search] tools`). */
import { readFileSync } from "node:fs";
import { AIRLINE_TOOLS } from "./airline-tools";
import { RETAIL_TOOLS } from "./retail-tools";
import { runTool, type Rec, type ToolSpec, type Work } from "./tool-core";

export const TAU_DOMAIN_NAMES = ["retail", "airline"] as const;
export type TauDomainName = (typeof TAU_DOMAIN_NAMES)[number];

export interface TauDomain {
  tables: readonly string[];
  tools: Record<string, ToolSpec>;
  /** tau-bench's tool schemas (written by scripts/parity/taugym_parity.py --tools). */
  toolInfo: { function: unknown }[];
}

const info = (name: TauDomainName) =>
  JSON.parse(readFileSync(new URL(`./${name}-tool-info.json`, import.meta.url), "utf8")) as TauDomain["toolInfo"];

export const TAU_DOMAINS: Record<TauDomainName, TauDomain> = {
  retail: { tables: ["users", "orders", "products"], tools: RETAIL_TOOLS, toolInfo: info("retail") },
  airline: { tables: ["flights", "reservations", "users"], tools: AIRLINE_TOOLS, toolInfo: info("airline") },
};

/** The tool that ends the conversation (tau-bench's terminate_tools, both domains). */
export const TERMINATE_TOOLS = ["transfer_to_human_agents"];

export function runDomainTool(domain: TauDomainName, w: Work, name: string, args: Rec): string {
  return runTool(TAU_DOMAINS[domain].tools, w, name, args);
}
