/**
 * The sgd tool mocker against agent_gym's own `LLMToolMocker` (tests/fixtures/parity/agent-gym-mocker.json, made by
 * scripts/parity/agent_gym_mocker_parity.py over the vendored SGD sample): 296 perturbed real calls — values swapped,
 * re-cased, cut, parameters dropped, renamed or added, every value unseen, times written differently — each answered
 * by the same stage and the same recording as agent_gym answers it offline (its LLM stage reached but, without a key,
 * inventing nothing).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { loadSgdCorpus } from "./sgd-format";
import { createToolMocker, FUZZY_HIGH_OVERLAP, type MockResponse } from "./tool-mocker";
import type { RecordedCall } from "./sgd-task";

interface Case {
  kind: string;
  from: { dialogue_id: string; turn: number } | null;
  method: string;
  parameters: Record<string, unknown>;
  reached: string[];
  stage: "exact" | "fuzzy>=0.8" | "fuzzy>=0.5" | "first" | "none";
  recording: { dialogue_id: string; turn: number } | null;
  results?: unknown[];
}
const REPO = path.resolve(import.meta.dirname, "../../..");
const fx = JSON.parse(readFileSync(path.join(REPO, "tests/fixtures/parity/agent-gym-mocker.json"), "utf8")) as { cases: Case[] };

/** Every recorded call of the sample in agent_gym's index order, and where each came from. */
async function corpusRecordings() {
  const corpus = await loadSgdCorpus(path.join(REPO, "tests/fixtures/shared/data/sgd/train"));
  const origin = new Map<unknown, string>();
  const recordings: RecordedCall[] = [];
  for (const d of corpus.dialogues) {
    d.turns.forEach((t, i) => {
      for (const f of t.frames) {
        if (!f.serviceCall || !f.serviceResults) continue;
        const r = { service: f.service, method: f.serviceCall.method, parameters: f.serviceCall.parameters, results: f.serviceResults };
        recordings.push(r);
        origin.set(r.results, `${d.dialogueId}#${i}`);
      }
    });
  }
  return { services: corpus.services, recordings, origin };
}

/** agent_gym's name for the stage that answered. */
function stageOf(r: MockResponse & { ok: true }, llmAsked: boolean): string {
  if (r.match === "fuzzy") return (r.score ?? 0) >= FUZZY_HIGH_OVERLAP && !llmAsked ? "fuzzy>=0.8" : "fuzzy>=0.5";
  return r.match;
}

test("≥ 200 perturbed real calls are answered by agent_gym's stage and agent_gym's recording", async () => {
  const { services, recordings, origin } = await corpusRecordings();
  const mocker = createToolMocker(services, [], recordings);
  assert.ok(fx.cases.length >= 200);
  let same = 0;
  const differ: Record<string, number> = {};
  for (const c of fx.cases) {
    if (c.kind === "unknown_method") continue; // kept on purpose, next test
    let llmAsked = false;
    const r = await mocker.call(c.method, c.parameters, async () => {
      llmAsked = true;
      return { rows: null, callId: "offline" }; // agent_gym's LLM stage without a key
    });
    const want = c.recording ? `${c.recording.dialogue_id}#${c.recording.turn}` : JSON.stringify(c.results);
    const got = r.ok ? (origin.get(r.results) ?? JSON.stringify(r.results)) : `error: ${r.error}`;
    const stage = r.ok ? stageOf(r, llmAsked) : "error";
    if (got === want && stage === c.stage && llmAsked === c.reached.includes("llm")) same++;
    else {
      const key = `${c.kind}: ${stage} vs agent_gym's ${c.stage}`;
      differ[key] = (differ[key] ?? 0) + 1;
    }
  }
  const compared = fx.cases.filter((c) => c.kind !== "unknown_method").length;
  assert.deepEqual(differ, {}, `${same} of ${compared} answered as agent_gym's`);
});

test("kept on purpose: an unknown function is an error naming the functions (agent_gym answers []); own recordings first among exact matches", async () => {
  const { services, recordings, origin } = await corpusRecordings();
  const mocker = createToolMocker(services, [], recordings);
  for (const c of fx.cases.filter((x) => x.kind === "unknown_method")) {
    assert.equal(c.stage, "none");
    const r = await mocker.call(c.method, c.parameters);
    assert.ok(
      !r.ok && /^unknown function ".*"; available functions: .*ReserveRestaurant, FindRestaurants/.test(r.error),
      JSON.stringify(r),
    );
  }
  // An episode's mocker prefers its dialogue's own recording among exact matches: played from the dialogue each call
  // came from, no answer here changes (the fallbacks keep agent_gym's corpus order).
  const theirs = createToolMocker(services, [], recordings);
  let changed = 0;
  for (const c of fx.cases.filter((x) => x.from)) {
    const own = recordings.filter((r) => origin.get(r.results)?.startsWith(`${c.from!.dialogue_id}#`));
    const mine = createToolMocker(services, own, recordings);
    const [a, b] = [await mine.call(c.method, c.parameters), await theirs.call(c.method, c.parameters)];
    if (a.ok && b.ok && a.results !== b.results) changed++;
  }
  assert.equal(changed, 0, `${changed} of ${fx.cases.length} answers change when the dialogue's own recordings come first`);
});
