-- Consecutive claims of a run whose worker died (lease expired while running). Graceful stops (SIGTERM, deploys)
-- and resumes put the run back in the queue and reset it, so only crash loops fail a run.
ALTER TABLE "Run" ADD COLUMN "crashes" INTEGER NOT NULL DEFAULT 0;
