import { test } from "node:test";
import assert from "node:assert/strict";
import { RunStatus } from "../generated/prisma/enums";
import { RUN_STATUSES } from "./run-status";

test("the dashboard's run statuses are the database's", () => {
  assert.deepEqual([...RUN_STATUSES].sort(), Object.values(RunStatus).sort());
});
