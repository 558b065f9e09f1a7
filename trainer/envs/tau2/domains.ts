/** The τ² domains this environment implements, and how a folder's database says which one it is. */
import { AIRLINE_TABLES, airlineDomain } from "./airline-domain";
import { domainOfDb, type Tau2DomainTools } from "./domain";
import { MOCK_TABLES, mockDomain } from "./mock-domain";
import { RETAIL_TABLES, retailDomain } from "./retail-domain";

export const TAU2_DOMAINS: readonly { name: string; tables: readonly string[]; tools: Tau2DomainTools }[] = [
  { name: "retail", tables: RETAIL_TABLES, tools: retailDomain as Tau2DomainTools },
  { name: "airline", tables: AIRLINE_TABLES, tools: airlineDomain as Tau2DomainTools },
  { name: "mock", tables: MOCK_TABLES, tools: mockDomain as Tau2DomainTools },
];

/** The domain of a db.json (by its tables) and the database validated by it. */
export function loadDomainDb(raw: unknown, file: string): { tools: Tau2DomainTools; db: unknown } {
  const domain = domainOfDb(raw, file, TAU2_DOMAINS);
  return { tools: domain.tools, db: domain.tools.validateDb(raw, file) };
}
