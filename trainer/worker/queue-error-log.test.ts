import { test } from "node:test";
import assert from "node:assert/strict";
import { createQueueErrorLog } from "./queue-error-log";

const expired = (id: string) =>
  new Error(
    `Transaction API error: Transaction already closed: A query cannot be executed on an expired transaction. The timeout for this transaction was 5000 ms, however 92${id.length} ms passed. id ${id}\nstack…`,
  );

test("191 identical transaction errors of a busy worker are 1 line with what it means, then 1 line counting the rest", () => {
  const lines: string[] = [];
  let t = 0;
  const errors = createQueueErrorLog((m) => lines.push(m), { baseDelayMs: 500, now: () => t });
  for (let i = 0; i < 191; i++) {
    errors.failed(expired(`c${(1e9 + i).toString(16)}abcdef`));
    t += 200;
  }
  assert.equal(lines.length, 1);
  assert.match(lines[0], /^queue error: Transaction API error: .*too busy to finish a database transaction in time/);
  errors.succeeded();
  assert.equal(lines.length, 2);
  assert.match(lines[1], /^queue error: the same error 190 more times in 38 s$/);
});

test("a different error is logged at once; the same one is logged again after a minute; waits double up to the cap", () => {
  const lines: string[] = [];
  let t = 0;
  const errors = createQueueErrorLog((m) => lines.push(m), { baseDelayMs: 500, maxDelayMs: 4_000, now: () => t });
  assert.deepEqual(
    [1, 2, 3, 4, 5].map(() => errors.failed(new Error("connect ECONNREFUSED 127.0.0.1:5432"))),
    [500, 1000, 2000, 4000, 4000],
  );
  errors.failed(new Error("permission denied for table Preflight"));
  assert.deepEqual(lines, [
    "queue error: connect ECONNREFUSED 127.0.0.1:5432",
    "queue error: the same error 4 more times in 0 s",
    "queue error: permission denied for table Preflight",
  ]);
  t = 61_000;
  errors.failed(new Error("permission denied for table Preflight"));
  assert.equal(lines.length, 4, "a minute later the error is shown again");
  errors.succeeded();
  assert.equal(errors.failed(new Error("x")), 500, "back-off reset by a success");
});
