/**
 * A deterministic stand-in for the policy, environments and updater, for loop and worker tests. The "policy" is a
 * single number (`skill`) that each update raises; a sample's reward depends on skill, task and sample index, so a
 * run resumed from the wrong checkpoint (or with the wrong task order) produces visibly different curves.
 * Checkpoints are JSON files (written to a temp name, then renamed: complete or absent), so separate worker
 * processes can resume each other's runs.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Task } from "../../envs/types";
import type { LoopDeps, RolloutSample } from "../types";

export interface FakeState {
  skill: number;
  updates: number;
}

export interface FakeDepsOptions {
  checkpointDir: string;
  /** Tasks in the training set (default 5). */
  taskCount?: number;
  /** Simulated time per group rollout, so tests can act "during" a step. */
  groupDelayMs?: number;
  /** Throw from the rollout of this step (simulated crash/bug), once. */
  failAtStep?: number;
  failMessage?: string;
  /** From this step on every judgement "fails": rewards are null (unscored). */
  unscoredFromStep?: number;
}

export interface FakeDeps extends LoopDeps<{ taskId: string; index: number }> {
  state: FakeState;
  rolloutsPerStep: Map<number, number>;
}

export function fakeTasks(n: number, split = "train"): Task[] {
  return Array.from({ length: n }, (_, i) => ({ id: `${split}-task-${i}`, split, tags: [], data: { difficulty: i } }));
}

/** Reward in [0, 1]: grows with skill, differs per task and per sample so groups have variance. */
export function fakeReward(skill: number, taskId: string, index: number): number {
  const difficulty = Number(taskId.split("-").pop()) || 0;
  return Math.round(Math.min(1, Math.max(0, 0.2 + 0.05 * skill - 0.03 * difficulty + 0.1 * (index % 3))) * 1000) / 1000;
}

export function createFakeDeps(opts: FakeDepsOptions): FakeDeps {
  let failPending = opts.failAtStep !== undefined;
  const deps: FakeDeps = {
    state: { skill: 0, updates: 0 },
    rolloutsPerStep: new Map(),
    trainTasks: fakeTasks(opts.taskCount ?? 5),
    evalTasks: fakeTasks(2, "test"),
    async runGroup(req) {
      if (failPending && req.step === opts.failAtStep && req.split === "train") {
        failPending = false;
        throw new Error(opts.failMessage ?? "simulated crash in the environment\n    at fake stack line");
      }
      if (opts.groupDelayMs) await new Promise((r) => setTimeout(r, opts.groupDelayMs));
      if (req.signal.aborted) throw new Error("rollout aborted");
      deps.rolloutsPerStep.set(req.step, (deps.rolloutsPerStep.get(req.step) ?? 0) + 1);
      const samples: RolloutSample<{ taskId: string; index: number }>[] = Array.from({ length: req.size }, (_, index) => {
        const reward =
          opts.unscoredFromStep !== undefined && req.step >= opts.unscoredFromStep
            ? null
            : fakeReward(deps.state.skill, req.task.id, index);
        return {
          sample: { taskId: req.task.id, index },
          record: {
            reward,
            components: (reward === null ? {} : { task_success: reward }) as Record<string, number>,
            reasoning: reward === null ? "Unscored: judge call failed: 502 Bad Gateway" : `skill ${deps.state.skill}`,
            status: "ok",
            endReason: "agent_finished",
            error: null,
            numTurns: 1,
            promptTokens: 10,
            responseTokens: 5,
            conversation: [
              { role: "user", source: "user_simulator", turn: 0, content: `task ${req.task.id}` },
              { role: "assistant", source: "policy", turn: 0, content: `answer ${index}` },
            ],
            llmCalls: [],
          },
        };
      });
      return { samples, rewardSeconds: 0 };
    },
    async update(groups) {
      deps.state.skill += 1;
      deps.state.updates += 1;
      const n = groups.reduce((s, g) => s + g.samples.length, 0);
      return { metrics: { "loss/policy": 1 / deps.state.skill, "train/samples": n } };
    },
    async saveCheckpoint(completedSteps) {
      const dir = path.join(opts.checkpointDir, `step-${completedSteps}`);
      mkdirSync(dir, { recursive: true });
      const file = path.join(dir, "state.json");
      writeFileSync(`${file}.tmp`, JSON.stringify(deps.state));
      renameSync(`${file}.tmp`, file);
      return { location: dir, sizeBytes: statSync(file).size };
    },
    async loadCheckpoint(location) {
      deps.state = JSON.parse(readFileSync(path.join(location, "state.json"), "utf8")) as FakeState;
    },
    async deleteCheckpoint(location) {
      rmSync(location, { recursive: true, force: true });
    },
  };
  return deps;
}
