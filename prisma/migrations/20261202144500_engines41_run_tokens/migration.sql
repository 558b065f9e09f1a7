-- A run-scoped API token (made by the launcher for an outside engine): it records and logs into its run only.
ALTER TABLE "ApiToken" ADD COLUMN "runId" TEXT;
