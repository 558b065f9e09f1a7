-- Responses of REST creates sent with an Idempotency-Key, stored in the same transaction as what they created, so a
-- retried request (the CLI retries POSTs; a crash can lose a reply) returns the original result instead of a duplicate.
CREATE TABLE "IdempotencyKey" (
    "tokenId" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "requestHash" TEXT NOT NULL,
    "status" INTEGER NOT NULL,
    "response" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "IdempotencyKey_pkey" PRIMARY KEY ("tokenId", "key")
);

CREATE INDEX "IdempotencyKey_createdAt_idx" ON "IdempotencyKey"("createdAt");
