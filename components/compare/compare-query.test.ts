import { test } from "node:test";
import assert from "node:assert/strict";
import { chooseKeys, parseCompareQuery, toCompareQuery } from "./compare-query";

test("a shared compare URL restores the runs, metric keys and smoothing, deduplicated", () => {
  const q = parseCompareQuery(new URLSearchParams("runs=a,b,a&keys=reward/mean,kl&smooth=0.8"));
  assert.deepEqual(q, { runs: ["a", "b"], keys: ["reward/mean", "kl"], smooth: 0.8, group: [], band: "std" });
  assert.equal(toCompareQuery(q), "runs=a,b&keys=reward/mean,kl&smooth=0.80");
  assert.equal(toCompareQuery({ ...q, smooth: 0 }), "runs=a,b&keys=reward/mean,kl", "no smoothing, no parameter");
  assert.deepEqual(parseCompareQuery(new URLSearchParams("")), { runs: [], keys: null, smooth: 0, group: [], band: "std" });
  assert.equal(parseCompareQuery(new URLSearchParams("smooth=7")).smooth, 0.99, "clamped");
});

test("a grouped comparison keeps its grouping settings and band in the URL; an unknown band falls back to std", () => {
  const q = parseCompareQuery(new URLSearchParams("runs=a,b,c,d&group=grpo.learningRate,policy.model&band=minmax"));
  assert.deepEqual(q.group, ["grpo.learningRate", "policy.model"]);
  assert.equal(q.band, "minmax");
  assert.equal(toCompareQuery(q), "runs=a,b,c,d&group=grpo.learningRate,policy.model&band=minmax");
  assert.equal(toCompareQuery({ ...q, band: "std" }), "runs=a,b,c,d&group=grpo.learningRate,policy.model", "std is the default");
  assert.equal(toCompareQuery({ ...q, group: [] }), "runs=a,b,c,d", "no band without a grouping");
  assert.equal(parseCompareQuery(new URLSearchParams("group=seed&band=var")).band, "std");
  const many = Array.from({ length: 30 }, (_, i) => `r${i}`).join(",");
  assert.equal(parseCompareQuery(new URLSearchParams(`runs=${many}`)).runs.length, 24, "at most MAX_RUNS runs");
});

test("without a key choice the headline metrics are drawn; a chosen key the runs lack is dropped", () => {
  assert.deepEqual(chooseKeys(null, ["entropy", "kl", "loss/policy", "reward/mean"]), ["reward/mean", "kl", "entropy"]);
  assert.deepEqual(chooseKeys(null, ["x", "y"]), ["x", "y"]);
  // Runs that name the families differently still get all four headline charts.
  assert.deepEqual(chooseKeys(null, ["actor/entropy", "actor/ppo_kl", "critic/score/mean", "response_length/mean", "timing/gen"]), [
    "critic/score/mean",
    "actor/ppo_kl",
    "actor/entropy",
    "response_length/mean",
  ]);
  assert.deepEqual(chooseKeys(null, ["loss/ppo_kl", "reward/mean", "loss/policy"]), ["reward/mean", "loss/ppo_kl"]);
  assert.deepEqual(chooseKeys(["kl", "gone"], ["kl"]), ["kl"]);
  assert.deepEqual(chooseKeys([], ["kl"]), []);
});
