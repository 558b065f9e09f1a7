-- Runs trained elsewhere (verl, SkyRL, TRL, Simia-RL, τ²-bench, …) and imported or streamed in through the ingest API.
-- "source" names the system that trained the run; workers only ever claim runs whose source is 'rollout-lab'.
ALTER TABLE "Run" ADD COLUMN "source" TEXT NOT NULL DEFAULT 'rollout-lab';
ALTER TYPE "LaunchSource" ADD VALUE 'import';
