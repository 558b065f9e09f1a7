-- Pre-flight checks of a run config before launch: the web app queues one, a trainer worker renders the
-- environment's real opening prompt with the chosen policy's tokenizer and answers with the fit and estimates.
CREATE TABLE "Preflight" (
    "id" TEXT NOT NULL,
    "config" JSONB NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "result" JSONB,
    "error" TEXT,
    "workerId" TEXT,
    "leaseExpiresAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" TIMESTAMP(3),
    CONSTRAINT "Preflight_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "Preflight_status_createdAt_idx" ON "Preflight"("status", "createdAt");
