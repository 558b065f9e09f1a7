// npm run db:seed — queue another demo run (`npm start` queues one only on an empty database); a worker trains it.
// npm run db:seed -- --eval — queue the demo evaluation instead (τ² retail, the tasks' gold actions replayed).
import { loadEnv } from "../lib/env";
import { isUserFacingStartupError, prepareDatabase } from "../db/bootstrap";
import { createPrismaClient } from "../db/client";
import { queueDemoRun } from "../server/seed/demo";
import { queueDemoEvaluation } from "../server/services/evaluation-launch";

try {
  const db = await prepareDatabase(loadEnv());
  const prisma = createPrismaClient(db.url);
  if (process.argv.includes("--eval")) {
    const { id } = await queueDemoEvaluation(prisma, { launchedBy: "seed", launchedByName: "npm run db:seed (demo evaluation)" });
    console.log(`Queued the demo evaluation ${id} (gold actions replayed, not a model); a worker plays it in seconds.`);
  } else {
    const id = await queueDemoRun(prisma);
    console.log(`Queued demo run ${id}; start a worker (npm start or npm run worker) to train it.`);
  }
  await prisma.$disconnect();
  await db.stop();
} catch (err) {
  console.error(isUserFacingStartupError(err) ? err.message : err);
  process.exit(1);
}
