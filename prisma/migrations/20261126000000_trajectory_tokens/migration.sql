-- The policy's view of each trajectory (lib/policy-tokens.ts), beside the trajectory rather than in it so that
-- trajectory lists never read it.
CREATE TABLE "TrajectoryTokens" (
    "trajectoryId" TEXT NOT NULL,
    "tokens" JSONB NOT NULL,
    CONSTRAINT "TrajectoryTokens_pkey" PRIMARY KEY ("trajectoryId")
);
ALTER TABLE "TrajectoryTokens" ADD CONSTRAINT "TrajectoryTokens_trajectoryId_fkey" FOREIGN KEY ("trajectoryId") REFERENCES "Trajectory"("id") ON DELETE CASCADE ON UPDATE CASCADE;
