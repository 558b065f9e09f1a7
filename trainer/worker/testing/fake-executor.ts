/** A RunExecutor over the loop's deterministic fakes (trainer/loop/testing), for worker tests. */
import path from "node:path";
import { trainRun } from "../../loop/train-run";
import { createFakeDeps, type FakeDepsOptions } from "../../loop/testing/fake-deps";
import type { RunExecutor } from "../worker";

export function createFakeExecutor(checkpointRoot: string, opts: Omit<FakeDepsOptions, "checkpointDir"> = {}): RunExecutor {
  return (ctx) =>
    trainRun(ctx.config, createFakeDeps({ ...opts, checkpointDir: path.join(checkpointRoot, ctx.run.id) }), ctx.sink, ctx.control);
}
