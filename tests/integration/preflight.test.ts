/**
 * Pre-flight checks over REST against a running server, answered by a worker's pre-flight loop on the real
 * PostgreSQL: the environment's real opening prompt rendered with the policy's tokenizer, compared with its context.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { api, startApiServer, type ApiServer } from "./api-harness";
import type { PreflightResult } from "../../lib/preflight";
import { configureDataRoots, dataRoots } from "../../trainer/data-roots";
import { startPreflightLoop, type PreflightLoop } from "../../trainer/preflight/loop";

let server: ApiServer;
let token: string;
let loop: PreflightLoop;
const dataDir = mkdtempSync(path.join(tmpdir(), "rl-preflight-"));
before(async () => {
  process.env.ROLLOUT_LAB_BACKEND ??= "cpu";
  server = await startApiServer();
  token = await server.token(["read", "write"], "preflight");
  configureDataRoots(dataRoots(dataDir));
  loop = startPreflightLoop({ db: server.db.prisma, dataDir, pollMs: 50, log: () => {} });
});
after(async () => {
  await loop?.stop();
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function preflight(
  config: Record<string, unknown>,
): Promise<{ status: string; result: PreflightResult | null; error: string | null }> {
  const queued = await api(server.base, token, "POST", "/preflight", { config });
  assert.equal(queued.status, 202, queued.text);
  for (;;) {
    const res = await api(server.base, token, "GET", `/preflight/${queued.json.id}`);
    assert.equal(res.status, 200, res.text);
    if (res.json.status === "done" || res.json.status === "failed") return res.json as never;
    await new Promise((r) => setTimeout(r, 100));
  }
}

test("a prompt that does not fit the context is reported with its figures and what to change", async () => {
  const { status, result } = await preflight({
    environment: "simulated",
    policy: { model: "tiny", contextLength: 256 },
    rollout: { maxNewTokens: 64, maxTurns: 4 },
  });
  assert.equal(status, "done");
  assert.ok(result);
  assert.equal(result.fits, false);
  assert.ok(result.promptTokens > 256, `the simulated environment's opening is ${result.promptTokens} byte tokens`);
  assert.equal(result.contextLength, 256);
  assert.equal(result.headroom, 256 - result.promptTokens - 64);
  assert.match(
    result.problems[0],
    new RegExp(
      `opening prompt is ${result.promptTokens} tokens .* context is 256.*Raise policy\\.contextLength to at least ${result.promptTokens + 128}`,
    ),
  );
  assert.ok(result.promptTail.length > 0);
});

test("the guess-number preset fits, with tokens, memory and time per step", async () => {
  const { status, result } = await preflight({
    environment: "guess-number",
    policy: { model: "tiny", contextLength: 512 },
    rollout: { maxNewTokens: 8, maxTurns: 3 },
    grpo: { groupsPerStep: 2, groupSize: 4, minibatchSize: 8 },
  });
  assert.equal(status, "done");
  assert.ok(result);
  assert.equal(result.fits, true);
  assert.deepEqual(result.problems, []);
  assert.equal(result.episodesPerStep, 8);
  assert.equal(result.sampledTokensPerStep, 8 * 3 * 8);
  assert.equal(result.tokensPerStep, 8 * (result.promptTokens + 24));
  assert.ok(result.memoryBytes > 0 && result.memoryBytes < result.memoryLimitBytes);
  assert.ok(result.forwardMs > 0 && result.stepSecondsEstimate > 0);
});

test("an invalid config is a 400 naming the field; an unknown check is a 404; a path outside the data folders fails the check", async () => {
  const bad = await api(server.base, token, "POST", "/preflight", { config: { grpo: { groupSize: 1 } } });
  assert.equal(bad.status, 400);
  assert.match(JSON.stringify(bad.json.error), /grpo\.groupSize/);
  assert.equal((await api(server.base, token, "GET", "/preflight/nope")).status, 404);
  const outside = await preflight({ environment: "sgd", dataset: { path: "/etc" } });
  assert.equal(outside.status, "failed");
  assert.match(outside.error ?? "", /dataset\.path "\/etc" is outside the folders the trainer may read/);
});
