/**
 * The user-prompt search end to end: `rollout-lab sgd optimize-user` against a loopback OpenAI-compatible server
 * (the real openai SDK over HTTP) on real SGD dialogues, then an sgd episode run with the saved prompt.
 *
 * The loopback "user LLM" stands in for a model that imitates the real conversations only when told to mirror them
 * and shown some; otherwise it writes one stiff, long sentence. The search must find that, report the realism before
 * and after, save it as a new version each time, and the prompt must reach the user LLM in a run.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { main } from "./main";
import { startFakeLlmServer, type FakeChatRequest } from "../trainer/llm/fake-server/server";
import { USER_INSTRUCTIONS } from "../trainer/envs/sgd/user-prompt";
import { SgdConfigSchema, createSgdEnvironment } from "../trainer/envs/sgd/index";
import { LlmClient } from "../trainer/llm";
import { sharedData } from "../tests/fixtures/shared-data";

const SGD = sharedData("data/sgd/train").dir;
const STIFF =
  "Dear assistant, I hereby formally request that you provide the service according to every parameter previously specified in my goal.";

/** A first real user line of the first example conversation in the prompt, when asked to mirror; else STIFF. */
function imitator(req: FakeChatRequest): string {
  const system = req.messages[0]?.content ?? "";
  if (!system.includes(USER_INSTRUCTIONS.mirror)) return STIFF;
  const userLines = [...system.matchAll(/^USER: (.+)$/gm)].map((m) => m[1]);
  const asked = req.messages.filter((m) => m.role === "assistant").length;
  return userLines[asked % Math.max(1, userLines.length)] ?? STIFF;
}

test("sgd optimize-user finds the prompt whose simulated users read most like real ones, saves it as a new version, and a run uses it", async () => {
  const requests: FakeChatRequest[] = [];
  const server = await startFakeLlmServer({
    reply: (req) => {
      requests.push(req);
      return imitator(req);
    },
  });
  try {
    const out = mkdtempSync(path.join(tmpdir(), "user-prompts-"));
    const lines: string[] = [];
    const io = { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l) };
    const args = [
      "sgd",
      "optimize-user",
      "--data",
      SGD,
      "--base-url",
      server.url,
      "--model",
      "user-sim",
      "--dev-dialogues",
      "4",
      "--dev-turns",
      "8",
      "--out",
      out,
    ];
    assert.equal(await main(args, io), 0, lines.join("\n"));
    assert.equal(lines.filter((l) => /^ {2}\w+ +fewShot \d/.test(l)).length, 16, "4 instructions × 4 few-shot counts scored");
    const before = Number(/^before .*realism ([\d.]+)/m.exec(lines.join("\n"))![1]);
    const after = Number(/^after .*realism ([\d.]+)/m.exec(lines.join("\n"))![1]);
    assert.ok(after > before + 0.1, `realism before ${before}, after ${after}`);

    const artifact = JSON.parse(readFileSync(path.join(out, "sgd-user-v1.json"), "utf8"));
    assert.equal(artifact.instructionId, "mirror");
    assert.equal(artifact.improved, true);
    assert.ok(artifact.userPrompt.fewShot >= 1);
    assert.equal(artifact.before.realism.realism, before);
    assert.equal(artifact.after.realism.realism, after);

    // Searching again makes version 2, never overwriting version 1.
    assert.equal(await main(args, io), 0);
    assert.deepEqual(readdirSync(out).sort(), ["sgd-user-v1.json", "sgd-user-v2.json"]);

    // The printed snippet is a valid sgd config; the user LLM of a run then gets the saved instruction.
    const snippet = JSON.parse(lines.find((l) => l.startsWith('{"userPrompt"'))!);
    const config = SgdConfigSchema.parse(snippet);
    const env = createSgdEnvironment(config);
    const [task] = await env.loadTasks!(SGD);
    const llm = new LlmClient({ endpoints: { user_simulator: { baseUrl: server.url, model: "user-sim" } } });
    requests.length = 0;
    const ep = env.createEpisode(task, { seed: 0, llm, maxTurns: 4 });
    await ep.reset();
    assert.ok(
      requests.length > 0 && requests[0].messages[0].content.includes(USER_INSTRUCTIONS.mirror),
      "the run's user prompt is the saved one",
    );
  } finally {
    await server.close();
  }
});

test("sgd optimize-user names what is missing", async () => {
  const lines: string[] = [];
  const code = await main(["sgd", "optimize-user", "--data", SGD, "--model", "m"], {
    out: (l) => lines.push(l),
    err: (l) => lines.push(l),
  });
  assert.equal(code, 2);
  assert.match(lines.join("\n"), /needs --base-url/);
});

test("when no candidate beats the default prompt, optimize-user says so and keeps the default", async () => {
  // A user LLM that writes the same stiff sentence whatever its prompt: every candidate ties with the default.
  const server = await startFakeLlmServer({ reply: () => STIFF });
  try {
    const out = mkdtempSync(path.join(tmpdir(), "user-prompts-"));
    const lines: string[] = [];
    const io = { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l) };
    const args = ["sgd", "optimize-user", "--data", SGD, "--base-url", server.url, "--model", "user-sim"];
    assert.equal(await main([...args, "--dev-dialogues", "2", "--dev-turns", "4", "--out", out], io), 0, lines.join("\n"));
    assert.match(lines.join("\n"), /No candidate beat the default prompt: keeping it\./);
    assert.ok(!lines.some((l) => l.startsWith('{"userPrompt"')), "no snippet to paste: the run config needs no change");
    const artifact = JSON.parse(readFileSync(path.join(out, "sgd-user-v1.json"), "utf8"));
    assert.equal(artifact.improved, false);
    assert.deepEqual(artifact.after, artifact.before, "the kept prompt is the default one");
    assert.equal(artifact.userPrompt.instruction, USER_INSTRUCTIONS.default);
    assert.equal(artifact.userPrompt.fewShot, 2);
  } finally {
    await server.close();
  }
});
