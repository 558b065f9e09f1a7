// npm run db:migrate — apply pending migrations to DATABASE_URL (or the embedded database) and exit.
import { loadEnv } from "../lib/env";
import { isUserFacingStartupError, prepareDatabase } from "../db/bootstrap";

try {
  const db = await prepareDatabase(loadEnv());
  console.log(db.migrationsApplied.length ? `Applied: ${db.migrationsApplied.join(", ")}` : "Database schema is up to date.");
  await db.stop();
} catch (err) {
  console.error(isUserFacingStartupError(err) ? err.message : err);
  process.exit(1);
}
