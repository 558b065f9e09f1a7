/**
 * The episode journal on its own: what a recovery reports (lost = started and never ended, unstored = ended and not
 * marked stored), a line cut short by a crash skipped, concurrent appends group-committed, and the file rewritten
 * small once it passes its bound, keeping exactly what is live.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { EpisodeJournal } from "./journal";
import type { EpisodeRecord, LostSession } from "./recorder";

const lost = (n: number): LostSession => ({
  sessionId: `s${n}`,
  environment: "guess-number",
  taskId: "guess-1",
  episodeId: `e${n}`,
  trajectoryId: `t${n}`,
  startedAt: "2026-12-02T00:00:00.000Z",
  run: null,
});
const record = (n: number) => ({ trajectoryId: `t${n}`, step: 0, padding: "x".repeat(2000) }) as unknown as EpisodeRecord;

test("recover: started-never-ended is lost, ended-not-stored is replayed, a torn last line is skipped", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "rl-journal-"));
  try {
    const file = path.join(dir, "episodes.jsonl");
    const first = new EpisodeJournal(file);
    first.recover();
    await first.start();
    await Promise.all([1, 2, 3, 4].map((n) => first.started(`k${n}`, lost(n))));
    await first.ended("k1", record(1));
    await first.ended("k2", record(2));
    await first.ended("k3", null);
    first.stored(["k1"]);
    await first.started("k5", lost(5)); // the stored line above is written by now too
    await first.close();
    appendFileSync(file, '{"t":"end","key":"k4","rec'); // the crash cut this write

    const second = new EpisodeJournal(file);
    const r = second.recover();
    assert.deepEqual(r.lost.map((l) => l.trajectoryId).sort(), ["t4", "t5"]);
    assert.deepEqual(
      r.unstored.map((u) => [u.key, u.record.trajectoryId]),
      [["k2", "t2"]],
    );
    assert.equal(r.damaged, 1);
    // The rewritten file holds only the unstored episode: recovering again replays it, and reports nothing lost.
    const third = new EpisodeJournal(file).recover();
    assert.deepEqual(third.lost, []);
    assert.deepEqual(
      third.unstored.map((u) => u.key),
      ["k2"],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("appends made together share writes; past its bound the file is rewritten with only what is live", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "rl-journal-"));
  try {
    const file = path.join(dir, "episodes.jsonl");
    const j = new EpisodeJournal(file, 100_000);
    j.recover();
    await j.start();
    for (let round = 0; round < 10; round++) {
      const keys = Array.from({ length: 20 }, (_, i) => `r${round}-${i}`);
      await Promise.all(keys.map((k, i) => j.started(k, lost(i))));
      await Promise.all(keys.map((k, i) => j.ended(k, record(i))));
      if (round < 9) j.stored(keys);
    }
    await j.started("open", lost(99));
    await j.close();
    assert.ok(j.syncs <= 21, `${j.syncs} syncs for 401 durable appends made 20 at a time`);
    assert.ok(statSync(file).size < 100_000 + 60_000, `compacted: ${statSync(file).size} bytes after ~400 KB of appends`);
    const r = new EpisodeJournal(file).recover();
    assert.deepEqual(
      r.lost.map((l) => l.trajectoryId),
      ["t99"],
    );
    assert.equal(r.unstored.length, 20, "the last round, never marked stored");
    assert.ok(readFileSync(file, "utf8").split("\n").filter(Boolean).length === 20);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
