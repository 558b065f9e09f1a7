/**
 * The Prisma client for the web app and the trainer. One client per process (cached on globalThis so Next's dev
 * reloads do not open a new pool each time). Prisma 7 has no native engine: queries go through the `pg` driver.
 */
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "../generated/prisma/client";

const globalForPrisma = globalThis as unknown as { rolloutLabPrisma?: PrismaClient };

export function createPrismaClient(databaseUrl: string, poolSize = 5): PrismaClient {
  const adapter = new PrismaPg({ connectionString: databaseUrl, max: poolSize });
  return new PrismaClient({ adapter });
}

/** The process-wide client, using DATABASE_URL (set by `npm start` in embedded mode). */
export function getPrisma(): PrismaClient {
  if (!globalForPrisma.rolloutLabPrisma) {
    const url = process.env.DATABASE_URL;
    if (!url) {
      throw new Error("DATABASE_URL is not set; start Rollout Lab with `npm start`, which sets it (embedded or your own PostgreSQL).");
    }
    globalForPrisma.rolloutLabPrisma = createPrismaClient(url);
  }
  return globalForPrisma.rolloutLabPrisma;
}

export type { PrismaClient };
