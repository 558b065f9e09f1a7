-- A run's free-text notes (#46), editable after launch; shown in the runs table and found by its search.
ALTER TABLE "Run" ADD COLUMN "notes" TEXT NOT NULL DEFAULT '';
