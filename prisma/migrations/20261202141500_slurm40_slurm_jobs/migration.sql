-- Runs launched as Slurm batch jobs (#40): one row per job submitted for a run; the active row is the launcher's
-- hold on the run (a restarted launcher re-attaches to the job by id).
CREATE TABLE "SlurmJob" (
    "id" SERIAL NOT NULL,
    "runId" TEXT NOT NULL,
    "jobId" TEXT,
    "jobName" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "reason" TEXT,
    "nodes" TEXT,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "script" TEXT NOT NULL,
    "stdoutOffset" INTEGER NOT NULL DEFAULT 0,
    "stderrOffset" INTEGER NOT NULL DEFAULT 0,
    "cancelSent" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "endedAt" TIMESTAMP(3),

    CONSTRAINT "SlurmJob_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "SlurmJob_runId_id_idx" ON "SlurmJob"("runId", "id");
CREATE INDEX "SlurmJob_active_idx" ON "SlurmJob"("active");

ALTER TABLE "SlurmJob" ADD CONSTRAINT "SlurmJob_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;
