import { test } from "node:test";
import assert from "node:assert/strict";
import type { PolicyTokens } from "../../lib/policy-tokens";
import {
  FOLD_ABOVE,
  availableMetrics,
  colourScale,
  displayPiece,
  metricValues,
  summarize,
  tokenColour,
  tokenSegments,
} from "./policy-view-model";

/** A system prompt of `contextLength` tokens, then two replies of 3 tokens with an observation between them. */
function sequence(contextLength: number, withUpdate = true): PolicyTokens {
  const kinds = [...Array(contextLength).fill("c"), "r0", "r0", "r0", "c", "c", "r1", "r1", "r1"];
  const sampled = kinds.map((k) => (k === "c" ? 0 : 1));
  return {
    ids: kinds.map((_, i) => i),
    pieces: kinds.map((_, i) => `t${i}`),
    sampled,
    turns: kinds.map((k) => (k === "c" ? -1 : Number(k[1]))),
    logprobs: sampled.map((s, i) => (s ? -0.1 * i : 0)),
    truncatedPrompt: 0,
    contextSize: 512,
    ...(withUpdate && {
      update: {
        advantages: kinds.map((k) => (k === "r0" ? 0.5 : k === "r1" ? -0.25 : 0)),
        ratio: sampled.map((s) => (s ? 1.1 : null)),
        clipped: kinds.map((k, i) => (k === "r1" && i === kinds.length - 1 ? 1 : 0)),
        kl: null,
      },
    }),
  };
}

test("segments follow the switches between context and each reply; only long context folds, keeping its end", () => {
  const short = tokenSegments(sequence(5));
  assert.deepEqual(
    short.map((s) => [s.kind, s.start, s.end, s.turn, s.folded]),
    [
      ["context", 0, 5, null, null],
      ["reply", 5, 8, 0, null],
      ["context", 8, 10, null, null],
      ["reply", 10, 13, 1, null],
    ],
  );
  const long = tokenSegments(sequence(FOLD_ABOVE + 100))[0];
  assert.ok(long.folded && long.folded.start > long.start && long.folded.end < long.end);
  assert.ok(long.end - long.folded.end > long.folded.start - long.start, "more of the end (what the reply follows) stays visible");
});

test("a re-rendering of the conversation starts a segment of its own, marked, even inside context", () => {
  // the template re-rendered at token 9 (inside the observation between the replies)
  const segments = tokenSegments({ ...sequence(5), rerenderedAt: [9] });
  assert.deepEqual(
    segments.map((s) => [s.kind, s.start, s.end, s.rerendered ?? false]),
    [
      ["context", 0, 5, false],
      ["reply", 5, 8, false],
      ["context", 8, 9, false],
      ["context", 9, 10, true],
      ["reply", 10, 13, false],
    ],
  );
});

test("metrics exist only where recorded, and values sit on sampled tokens only", () => {
  assert.deepEqual(availableMetrics(sequence(5)), ["advantage", "logprob", "ratio"], "no KL without a reference");
  assert.deepEqual(availableMetrics(sequence(5, false)), ["logprob"], "before an update only the sampler's log-probs");
  const adv = metricValues(sequence(5), "advantage");
  assert.deepEqual(adv.slice(0, 5), [null, null, null, null, null]);
  assert.deepEqual(adv.slice(5, 8), [0.5, 0.5, 0.5]);
  assert.deepEqual(adv.slice(10), [-0.25, -0.25, -0.25]);
});

test("colours: advantage and ratio diverge by sign, the scale is the trajectory's own largest magnitude", () => {
  const t = sequence(5);
  const values = metricValues(t, "advantage");
  const scale = colourScale("advantage", values);
  assert.equal(scale, 0.5);
  assert.match(tokenColour("advantage", 0.5, scale)!, /^rgba\(22, 163, 74, 0\.83\)$/, "the largest gets full green");
  assert.match(tokenColour("advantage", -0.25, scale)!, /^rgba\(220, 38, 38,/, "negative is red");
  assert.equal(tokenColour("advantage", null, scale), undefined, "context is not painted");
  assert.ok(Math.abs(colourScale("ratio", [1.1, null, 1 / 1.2]) - Math.log(1.2)) < 1e-12, "ratios scale on |log r|");
  assert.equal(colourScale("ratio", [1, 1]), 0.01, "identical ratios are not magnified into a strong colour");
});

test("the summary counts sampled and clipped tokens and the perplexity of the samples", () => {
  const s = summarize(sequence(5));
  assert.equal(s.tokens, 13);
  assert.equal(s.sampled, 6);
  assert.equal(s.clipped, 1);
  const lp = [5, 6, 7, 10, 11, 12].map((i) => -0.1 * i);
  assert.ok(Math.abs(s.perplexity! - Math.exp(-lp.reduce((a, b) => a + b) / 6)) < 1e-12);
});

test("whitespace is made visible, chat-template markers are recognised", () => {
  assert.deepEqual(displayPiece("a\tb\n"), { text: "a→b↵", special: false, newline: true });
  assert.deepEqual(displayPiece("<|im_start|>"), { text: "<|im_start|>", special: true, newline: false });
});
