/**
 * A fresh, migrated database on the real PostgreSQL for one test file, dropped afterwards.
 * The admin URL defaults to the local server CI provides (127.0.0.1:5432, user postgres, trust auth).
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { applyMigrations } from "../../../db/migrate";
import { createPrismaClient, type PrismaClient } from "../../../db/client";

/** Read when used, not at import: scripts/test.ts sets it after starting a server when none was found. */
const adminUrl = () => process.env.TEST_PG_ADMIN_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";

export interface TestDatabase {
  name: string;
  url: string;
  prisma: PrismaClient;
  drop(): Promise<void>;
}

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export function databaseUrl(name: string): string {
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * Create an empty database (no migrations) and return its URL. Names are `<prefix>_<random>`, preceded by
 * TEST_DB_PREFIX when set (e.g. to tell two checkouts' test databases apart on one server).
 */
export async function createEmptyDatabase(prefix = "rl_test"): Promise<{ name: string; url: string }> {
  const scope = process.env.TEST_DB_PREFIX;
  if (scope !== undefined && !/^[a-z_][a-z0-9_]{0,30}$/.test(scope))
    throw new Error(`TEST_DB_PREFIX must be lower-case letters, digits and _ (at most 31), got "${scope}".`);
  const name = `${scope ? `${scope}_` : ""}${prefix}_${randomBytes(5).toString("hex")}`;
  await admin((c) => c.query(`CREATE DATABASE "${name}"`));
  return { name, url: databaseUrl(name) };
}

export async function dropDatabase(name: string): Promise<void> {
  await admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
}

export async function createTestDatabase(prefix = "rl_test"): Promise<TestDatabase> {
  const { name, url } = await createEmptyDatabase(prefix);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await applyMigrations(client);
  } finally {
    await client.end();
  }
  const prisma = createPrismaClient(url);
  return {
    name,
    url,
    prisma,
    async drop() {
      await prisma.$disconnect();
      await dropDatabase(name);
    },
  };
}
