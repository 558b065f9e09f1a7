-- Runs trained elsewhere, at their real size (#32): an external run whose client went silent becomes `stale` (or
-- failed, per run), a client reattaches to its run by a key of its own, and a re-sent sample is an upsert whose
-- content hash says whether it changed.
ALTER TYPE "RunStatus" ADD VALUE 'stale';
ALTER TABLE "Run" ADD COLUMN "runKey" TEXT;
ALTER TABLE "Run" ADD COLUMN "lastDataAt" TIMESTAMP(3);
ALTER TABLE "Run" ADD COLUMN "staleAfterSeconds" INTEGER;
ALTER TABLE "Run" ADD COLUMN "onStale" TEXT;
CREATE UNIQUE INDEX "Run_runKey_key" ON "Run"("runKey");
ALTER TABLE "Trajectory" ADD COLUMN "ingestHash" TEXT;
