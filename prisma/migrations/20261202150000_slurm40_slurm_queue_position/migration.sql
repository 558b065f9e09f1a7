-- A pending Slurm job's place in its partition's queue (#40), shown on the run page and in the runs list.
ALTER TABLE "SlurmJob" ADD COLUMN "queuePosition" INTEGER;
