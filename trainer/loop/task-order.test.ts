import { test } from "node:test";
import assert from "node:assert/strict";
import { parseRunConfig } from "../../lib/run-config";
import type { Task } from "../envs/types";
import { sampleTasksForStep, tasksAtCursor } from "./task-order";

const tasks: Task[] = Array.from({ length: 10 }, (_, i) => ({
  id: `t${i}`,
  split: "train",
  tags: i < 3 ? ["format"] : ["base"],
  data: null,
}));

test("each epoch visits every task once, in a seeded order", () => {
  const epoch0 = tasksAtCursor(tasks, 7, 0, 10).map((t) => t.id);
  assert.deepEqual([...epoch0].sort(), tasks.map((t) => t.id).sort());
  assert.notDeepEqual(
    epoch0,
    tasks.map((t) => t.id),
    "shuffled, not file order",
  );
  assert.notDeepEqual(
    tasksAtCursor(tasks, 7, 10, 10).map((t) => t.id),
    epoch0,
    "a new shuffle per epoch",
  );
  assert.notDeepEqual(
    tasksAtCursor(tasks, 8, 0, 10).map((t) => t.id),
    epoch0,
    "the seed changes the order",
  );
});

test("a resumed run sees exactly the tasks of the uninterrupted run", () => {
  const config = parseRunConfig({ seed: 3, grpo: { groupsPerStep: 4, groupSize: 2, minibatchSize: 8 } });
  const uninterrupted = Array.from({ length: 9 }, (_, s) => sampleTasksForStep(config, tasks, s).tasks.map((t) => t.id));
  const resumed = [
    ...uninterrupted.slice(0, 5),
    ...Array.from({ length: 4 }, (_, k) => sampleTasksForStep(config, tasks, 5 + k).tasks.map((t) => t.id)),
  ];
  assert.deepEqual(resumed, uninterrupted);
  assert.equal(uninterrupted[0].length, 4);
});

test("curriculum stages draw only from their filtered tasks", () => {
  const config = parseRunConfig({
    grpo: { steps: 4, groupsPerStep: 2, groupSize: 2, minibatchSize: 4 },
    curriculum: [
      { name: "format", steps: 2, filter: { tags: ["format"] } },
      { name: "all", steps: 2 },
    ],
  });
  const s1 = sampleTasksForStep(config, tasks, 1);
  assert.equal(s1.stageName, "format");
  assert.ok(s1.tasks.every((t) => t.tags.includes("format")));
  const s2 = sampleTasksForStep(config, tasks, 2);
  assert.equal(s2.stageName, "all");
  assert.equal(s2.cursor, 0);
});

test("an empty task list is a clear error", () => {
  assert.throws(() => tasksAtCursor([], 0, 0, 1), /No training tasks/);
});
