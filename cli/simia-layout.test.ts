/**
 * `runs export --layout simia` against the files Simia-RL's own GeneralSimulated env writes
 * (tests/fixtures/parity/simia-layout.json, made by scripts/parity/simia_layout_parity.py): Simia's 9 episodes — 4
 * environment slots in groups of 2 over 2 training steps, plus a validation episode — are played here over HTTP in
 * Simia's mode with Simia's prompt text, stored as a run's trajectories (placement and times as Simia's), exported
 * through the server's exporter and written by the CLI's layout writer; then the two folders are compared path by
 * path, record by record and byte by byte, with the differences kept on purpose (docs/environments/simulated.md)
 * named and counted.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import type { PrismaClient } from "../db/client";
import type { LlmCallRecord } from "../lib/conversation";
import { exportRunJsonl } from "../server/services/export";
import { LlmClient } from "../trainer/llm/client";
import { startFakeLlmServer } from "../trainer/llm/fake-server/server";
import { runEpisode, type EpisodeTrajectory } from "../trainer/rollout/run-episode";
import { createSimulatedEnvironment } from "../trainer/envs/simulated/index";
import { parseSimulatedTaskFile } from "../trainer/envs/simulated/importer";
import { simiaFileTime, writeSimiaLayout } from "./simia-layout";

// The episodes are played against a loopback model server (the test runner allows it for the whole suite).
process.env.ROLLOUT_LAB_LLM_BASE_URLS ??= "http://127.0.0.1:";

const REPO = path.resolve(import.meta.dirname, "..");
const readFixture = <T>(name: string) => JSON.parse(readFileSync(path.join(REPO, "tests/fixtures/parity", name), "utf8")) as T;
interface Episode {
  split: "train" | "eval";
  step: number;
  slot: number;
  group: number;
  index_in_group: number;
  sample_index: number;
  kind: string;
  time: string;
}
const fx = readFixture<{
  group_size: number;
  max_steps: number;
  dataset: { system: string; conversations: { from: string; value: string }[] }[];
  kinds: Record<string, { actions: string[]; replies: string[] }>;
  episodes: Episode[];
  files: { path: string; dir?: boolean; text?: string }[];
}>("simia-layout.json");
const templates = readFixture<{ templates: { simulator: string; judge: string } }>("simia-env.json").templates;
const tasks = parseSimulatedTaskFile(JSON.stringify(fx.dataset), "simia-layout.json");

/** Simia's times are naive UTC. */
const utc = (pythonIso: string) => new Date(`${pythonIso}Z`);

async function play(e: Episode): Promise<EpisodeTrajectory> {
  const queue = [...fx.kinds[e.kind].replies];
  const server = await startFakeLlmServer({ reply: () => queue.shift() ?? "(script exhausted)" });
  try {
    const endpoint = { baseUrl: server.url, model: "gpt-5" };
    const llm = new LlmClient({ endpoints: { user_simulator: endpoint, judge: endpoint }, retry: { maxAttempts: 1, baseDelayMs: 1 } });
    const actions = fx.kinds[e.kind].actions;
    return await runEpisode({
      env: createSimulatedEnvironment({ maxSimSteps: fx.max_steps, prompts: templates, judge: { mode: "simia" } }),
      task: tasks[e.sample_index],
      policy: async (_m, { turn }) => ({ text: actions[turn] ?? "" }),
      ctx: { seed: 0, llm },
      maxTurns: fx.max_steps,
    });
  } finally {
    await server.close();
  }
}

const RUN_CONFIG = {
  environment: "simulated",
  grpo: { groupSize: fx.group_size },
  rollout: { maxTurns: fx.max_steps },
  environmentOptions: { judge: { mode: "simia" } },
  llm: { userSimulator: { baseUrl: "http://127.0.0.1:9/v1", model: "gpt-5" } },
};

/** The stored rows the exporter reads (Prisma's shapes), placed and timed as Simia's episodes were. */
async function storedRows() {
  return Promise.all(
    fx.episodes.map(async (e, i) => {
      const t = await play(e);
      const at = utc(e.time);
      return {
        id: `t${String(i).padStart(2, "0")}`,
        runId: "run",
        step: e.step,
        split: e.split,
        taskId: tasks[e.sample_index].id,
        indexInGroup: e.index_in_group,
        reward: t.evaluation?.reward ?? null,
        reasoning: t.evaluation?.reasoning ?? null,
        status: t.status,
        endReason: t.endReason,
        error: null,
        conversation: t.messages,
        createdAt: at,
        group: { task: tasks[e.sample_index], indexInStep: e.group },
        llmCalls: t.llmCalls.map((c: LlmCallRecord) => ({ ...c, startedAt: at })),
      };
    }),
  );
}

/** Just what exportRunJsonl asks of the database. */
function fakeDb(rows: Awaited<ReturnType<typeof storedRows>>): PrismaClient {
  return {
    run: { findUnique: async () => ({ id: "run", config: RUN_CONFIG }) },
    trajectory: { findMany: async ({ cursor }: { cursor?: unknown }) => (cursor ? [] : rows) },
  } as unknown as PrismaClient;
}

function tree(dir: string): Map<string, string | null> {
  const out = new Map<string, string | null>();
  for (const f of readdirSync(dir, { recursive: true }).map(String).sort()) {
    const p = f.split(path.sep).join("/");
    out.set(
      statSync(path.join(dir, f)).isDirectory() ? `${p}/` : p,
      statSync(path.join(dir, f)).isDirectory() ? null : readFileSync(path.join(dir, f), "utf8"),
    );
  }
  return out;
}

const sha = (s: string) => `sha256:${createHash("sha256").update(s, "utf8").digest("hex")}`;
/** Our file's text with each prompt replaced by its sha256, as the fixture has Simia's. */
function hidePrompts(text: string): string {
  const rec = JSON.parse(text) as { gpt_call_history: { prompt: string }[] };
  for (const c of rec.gpt_call_history) text = text.replace(JSON.stringify(c.prompt), JSON.stringify(sha(c.prompt)));
  return text;
}

/**
 * The differences kept on purpose, made the same on both sides so that everything else is compared: the sample's
 * folder and `sample_index` (the task id, `simia-N` for Simia's sample N), `termination_reason` (Simia's file always
 * says "unknown"), `config.azure_endpoint` (the simulator's endpoint; Simia writes its Azure setting, unexpanded
 * here), whole floats (Python writes 1.0, JSON.stringify 1: the same number to a JSON reader), and the episode number
 * of a validation episode (Simia: the slot's last training episode; here the step).
 */
const KEPT = {
  sampleFolder: (p: string) => p.replace(/^sample_(\d+)\//, "sample_simia-$1/"),
  sampleIndex: (t: string) => t.replace(/^ {2}"sample_index": (\d+),$/m, '  "sample_index": "simia-$1",'),
  termination: (t: string) => t.replace(/^ {2}"termination_reason": ".*",$/m, '  "termination_reason": "(kept)",'),
  endpoint: (t: string) => t.replace(/^ {4}"azure_endpoint": ".*"$/m, '    "azure_endpoint": "(kept)"'),
  wholeFloats: (t: string) => t.replace(/^( *"[a-z_]+": -?\d+)\.0(,?)$/gm, "$1$2"),
};

test("runs export --layout simia writes the folders, file names and records Simia-RL's trainer writes", async () => {
  const rows = await storedRows();
  const out = mkdtempSync(path.join(os.tmpdir(), "simia-layout-"));
  try {
    const written = await writeSimiaLayout(Readable.from(exportRunJsonl(fakeDb(rows), { runId: "run" })), out);
    assert.equal(written, rows.length);
    const ours = tree(out);
    const theirs = new Map(fx.files.map((f) => [f.path, f.text ?? null]));
    const evalFile = (p: string) => {
      const e = fx.episodes.find((x) => x.split === "eval")!;
      return p.endsWith(`_${simiaFileTime(`${e.time}Z`)}.json`);
    };
    // Simia numbers a validation episode after the slot's last training episode; here it is the step it ran at.
    const evalEpisode = fx.episodes.find((x) => x.split === "eval")!;
    const expectedPath = (p: string) => KEPT.sampleFolder(evalFile(p) ? p.replace(/_ep\d+_/, `_ep${evalEpisode.step}_`) : p);

    const pathsSame = [...theirs.keys()].filter((p) => ours.has(expectedPath(p)));
    const extra = [...ours.keys()].filter((p) => ![...theirs.keys()].some((q) => expectedPath(q) === p));
    const keysSame: string[] = [];
    const fieldDiffs: string[] = [];
    const textSame: string[] = [];
    let fields = 0;
    for (const [p, want] of theirs) {
      if (want === null) continue;
      const got = ours.get(expectedPath(p));
      if (got == null) continue;
      const gotText = hidePrompts(got);
      let wantText = KEPT.wholeFloats(KEPT.endpoint(KEPT.termination(KEPT.sampleIndex(want))));
      if (evalFile(p)) wantText = wantText.replace(/^ {2}"episode_count": \d+,$/m, `  "episode_count": ${evalEpisode.step},`);
      const normal = (t: string) => KEPT.endpoint(KEPT.termination(t));
      if (normal(gotText) === wantText) textSame.push(p);
      const [g, w] = [JSON.parse(normal(gotText)), JSON.parse(wantText)] as Record<string, unknown>[];
      if (JSON.stringify(Object.keys(g)) === JSON.stringify(Object.keys(w))) keysSame.push(p);
      for (const k of Object.keys(w)) {
        fields++;
        if (JSON.stringify(g[k]) !== JSON.stringify(w[k]))
          fieldDiffs.push(`${p}: ${k}: ${JSON.stringify(g[k])?.slice(0, 80)} vs ${JSON.stringify(w[k])?.slice(0, 80)}`);
      }
    }
    const nFiles = fx.files.filter((f) => !f.dir).length;
    const figures = [
      `paths ${pathsSame.length} of ${theirs.size} (${extra.length} extra)`,
      `files with Simia's keys in Simia's order ${keysSame.length} of ${nFiles}`,
      `fields ${fields - fieldDiffs.length} of ${fields}`,
      `files identical byte for byte ${textSame.length} of ${nFiles}`,
    ].join(", ");
    assert.deepEqual(
      { missing: [...theirs.keys()].filter((p) => !pathsSame.includes(p)), extra, fieldDiffs: fieldDiffs.slice(0, 6) },
      { missing: [], extra: [], fieldDiffs: [] },
      figures,
    );
    assert.equal(textSame.length, nFiles, figures);

    // The kept differences, counted (docs/environments/simulated.md cites these figures).
    const texts = fx.files.filter((f) => !f.dir).map((f) => f.text!);
    const changed = (fn: (t: string) => string) => texts.filter((t) => fn(t) !== t).length;
    // 32 temperatures (1.0 in every call and config block) and the unicode episodes' two 1.0 rewards.
    const wholeFloats = texts.reduce((n, t) => n + (t.match(/^ *"[a-z_]+": -?\d+\.0,?$/gm) ?? []).length, 0);
    assert.deepEqual(
      {
        sampleFolders: [...theirs.keys()].filter((p) => p !== KEPT.sampleFolder(p)).length,
        sampleIndex: changed(KEPT.sampleIndex),
        termination: changed(KEPT.termination),
        endpoint: changed(KEPT.endpoint),
        filesWithWholeFloats: changed(KEPT.wholeFloats),
        wholeFloats,
        validationEpisodeNumber: [...theirs.keys()].filter((p) => evalFile(p) && !p.includes(`_ep${evalEpisode.step}_`)).length,
      },
      {
        sampleFolders: 12,
        sampleIndex: 9,
        termination: 9,
        endpoint: 9,
        filesWithWholeFloats: 9,
        wholeFloats: 34,
        validationEpisodeNumber: 1,
      },
    );
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
