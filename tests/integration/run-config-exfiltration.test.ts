/**
 * A run config is user input: it must not make the trainer send a secret of its host anywhere, nor read a file
 * outside the data folders. Tried as an attacker would, on the real worker path: the configs are written straight
 * into the database (as if another host, or an old version, had accepted them), so the worker's own checks are what
 * is tested; the creation-time checks are tested in server/services/run-lifecycle.test.ts.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { startFakeLlmServer, type FakeLlmServer } from "../../trainer/llm/fake-server/server";
import { useRealWorker } from "./helpers/real-worker";

const { runToEnd, dataDir } = useRealWorker("rl_test_exfil");
const datasets = path.join(dataDir, "datasets");
let attacker: FakeLlmServer;
const authorizations: string[] = [];

before(async () => {
  attacker = await startFakeLlmServer({
    reply: (req) => {
      authorizations.push(req.authorization ?? "");
      return "ok";
    },
  });
  process.env.SESSION_SECRET ??= "session-secret-that-must-stay-home";
  process.env.MY_PRIVATE_TOKEN = "private-token-value";
});
after(() => attacker.close());

const BASE = {
  environment: "simulated",
  grpo: { steps: 1, groupsPerStep: 1, groupSize: 2, minibatchSize: 2 },
  rollout: { maxTurns: 2, maxNewTokens: 8 },
  evaluation: { testFreq: 0 },
};

test(
  "apiKeyEnv naming the product's own secrets, or any non-key variable, is refused before a request is made",
  { timeout: 120_000 },
  async () => {
    for (const apiKeyEnv of ["DATABASE_URL", "SESSION_SECRET", "MY_PRIVATE_TOKEN"]) {
      const { run } = await runToEnd({
        ...BASE,
        name: `steal ${apiKeyEnv}`,
        llm: { judge: { baseUrl: attacker.url, model: "m", apiKeyEnv } },
      });
      assert.equal(run.status, "failed", apiKeyEnv);
      assert.match(
        run.error ?? "",
        new RegExp(`LLM role "judge": ${apiKeyEnv} is (one of Rollout Lab's own settings|not an allowed key variable)`),
      );
    }
    assert.deepEqual(authorizations, [], "the attacker's server never saw a request");
  },
);

/** Runs `fn` with some variables set (undefined: unset) and puts the test harness's values back afterwards. */
async function withEnv(vars: Record<string, string | undefined>, fn: () => Promise<void>): Promise<void> {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const apply = (v: Record<string, string | undefined>) => {
    for (const [k, val] of Object.entries(v)) {
      if (val === undefined) delete process.env[k];
      else process.env[k] = val;
    }
  };
  apply(vars);
  try {
    await fn();
  } finally {
    apply(saved);
  }
}

test("by default a listener on this machine gets nothing, even for a proper key variable", { timeout: 120_000 }, async () => {
  await withEnv(
    { ROLLOUT_LAB_LLM_BASE_URLS: undefined, ROLLOUT_LAB_ALLOW_PRIVATE_LLM: undefined, HOST_OPENAI_API_KEY: "host-key" },
    async () => {
      const { run } = await runToEnd({
        ...BASE,
        name: "loopback listener",
        llm: { judge: { baseUrl: attacker.url, model: "m", apiKeyEnv: "HOST_OPENAI_API_KEY" } },
      });
      assert.equal(run.status, "failed");
      assert.match(
        run.error ?? "",
        /LLM role "judge": http:\/\/127\.0\.0\.1:\d+ is this machine \(loopback\).*set ROLLOUT_LAB_ALLOW_PRIVATE_LLM=true .*or list the URL's prefix in ROLLOUT_LAB_LLM_BASE_URLS/,
      );
      assert.deepEqual(authorizations, [], "the listener never saw the key");
    },
  );
});

test("the product's own web port is refused even where loopback is allowed", { timeout: 120_000 }, async () => {
  // The listener plays the dashboard: PORT names it as the web server's port on this machine.
  await withEnv(
    { ROLLOUT_LAB_LLM_BASE_URLS: "http://127.0.0.1:", PORT: String(attacker.port), HOST_OPENAI_API_KEY: "host-key" },
    async () => {
      const { run } = await runToEnd({
        ...BASE,
        name: "own port",
        llm: { judge: { baseUrl: `http://127.0.0.1:${attacker.port}/api/`, model: "m", apiKeyEnv: "HOST_OPENAI_API_KEY" } },
      });
      assert.equal(run.status, "failed");
      assert.match(run.error ?? "", new RegExp(`is one of Rollout Lab's own listeners \\(port ${attacker.port}`));
      assert.deepEqual(authorizations, []);
    },
  );
});

test("a baseUrl outside ROLLOUT_LAB_LLM_BASE_URLS is refused even for a proper key variable", { timeout: 120_000 }, async () => {
  process.env.JUDGE_API_KEY = "judge-key";
  await withEnv({ ROLLOUT_LAB_LLM_BASE_URLS: "https://api.openai.com/v1" }, async () => {
    const { run } = await runToEnd({
      ...BASE,
      name: "other endpoint",
      llm: { judge: { baseUrl: attacker.url, model: "m", apiKeyEnv: "JUDGE_API_KEY" } },
    });
    assert.equal(run.status, "failed");
    assert.match(
      run.error ?? "",
      /is not an allowed LLM endpoint; allowed prefixes \(ROLLOUT_LAB_LLM_BASE_URLS\): https:\/\/api\.openai\.com\/v1/,
    );
    assert.deepEqual(authorizations, []);
  });
});

test("paths outside the data folders are refused without revealing contents or existence", { timeout: 180_000 }, async () => {
  mkdirSync(datasets, { recursive: true });
  symlinkSync("/etc/passwd", path.join(datasets, "innocent.json"));
  const outside = async (datasetPath: string) => {
    const { run } = await runToEnd({ ...BASE, name: `read ${datasetPath}`, dataset: { path: datasetPath } });
    assert.equal(run.status, "failed", datasetPath);
    assert.doesNotMatch(run.error ?? "", /root:|x:0:0/, "no file contents in the error");
    return (run.error ?? "").replace(datasetPath, "<path>");
  };
  const existing = await outside("/etc/passwd");
  assert.match(
    existing,
    /^dataset\.path "<path>" is outside the folders the trainer may read \(.*datasets.*\): put the data there, or list its folder in ROLLOUT_LAB_DATA_ROOTS/,
  );
  assert.equal(await outside("/etc/no-such-file-here"), existing, "a missing file outside the roots gets the same answer");
  assert.equal(await outside("/proc/self/environ"), existing);
  assert.equal(await outside("innocent.json"), existing, "a symlink out of the roots is refused");
});

test("a FIFO, or a file that is not JSON, fails the run at once with a sentence that quotes nothing", { timeout: 120_000 }, async () => {
  mkdirSync(datasets, { recursive: true });
  execFileSync("mkfifo", [path.join(datasets, "pipe.json")]);
  const fifo = await runToEnd({ ...BASE, name: "fifo", dataset: { path: "pipe.json" } });
  assert.equal(fifo.run.status, "failed");
  assert.match(fifo.run.error ?? "", /pipe\.json.*is not a regular file/);

  writeFileSync(path.join(datasets, "secrets.json"), "API_TOKEN=abc123-very-secret\n");
  const notJson = await runToEnd({ ...BASE, name: "not json", dataset: { path: "secrets.json" } });
  assert.equal(notJson.run.status, "failed");
  assert.match(notJson.run.error ?? "", /secrets\.json: not valid JSON( \(at character \d+\))?$/);
  assert.doesNotMatch(notJson.run.error ?? "", /API_TOKEN|abc123/);
});
