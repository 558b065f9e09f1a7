// npm run db:seed — queue another demo run (`npm start` queues one only on an empty database); a worker trains it.
import { loadEnv } from "../lib/env";
import { isUserFacingStartupError, prepareDatabase } from "../db/bootstrap";
import { createPrismaClient } from "../db/client";
import { queueDemoRun } from "../server/seed/demo";

try {
  const db = await prepareDatabase(loadEnv());
  const prisma = createPrismaClient(db.url);
  const id = await queueDemoRun(prisma);
  console.log(`Queued demo run ${id}; start a worker (npm start or npm run worker) to train it.`);
  await prisma.$disconnect();
  await db.stop();
} catch (err) {
  console.error(isUserFacingStartupError(err) ? err.message : err);
  process.exit(1);
}
