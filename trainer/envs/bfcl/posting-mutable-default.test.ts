/**
 * post_tweet's `mentions=[]` default is one list shared by every tweet posted without mentions, as in gorilla's and
 * EnvTuning's TwitterAPI. Expected values: gorilla's posting_api.py run with python3 on the same calls
 * (a: {'mentions': []}; mention(0, ['@x']); get_tweet(1) -> {'mentions': ['@x']}; a later tweet without mentions
 * starts with ['@x']; one with mentions=['@y'] has its own list).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { BfclRuntime } from "./runtime";
import { parsePythonCalls } from "./call-syntax";

const scenario = { TwitterAPI: { username: "john", password: "john123", authenticated: true, tweets: {}, tweet_counter: 0 } };

test("a mention on one tweet posted without mentions shows on every such tweet of the episode, as Python's shared default does", () => {
  for (const messages of ["gorilla", "envtuning"] as const) {
    const rt = new BfclRuntime(["TwitterAPI"], structuredClone(scenario), { longContext: false, messages });
    const run = (call: string) => rt.execute(parsePythonCalls(call)[0]).result;
    assert.match(run("post_tweet(content='a')"), /"mentions": \[\]/);
    assert.match(run("post_tweet(content='b', tags=['#t'])"), /"mentions": \[\]/);
    assert.equal(run("mention(tweet_id=0, mentioned_usernames=['@x'])"), '{"mention_status": "Users mentioned successfully"}');
    assert.match(run("get_tweet(tweet_id=1)"), /"mentions": \["@x"\]/, messages);
    assert.match(run("post_tweet(content='c', mentions=['@y'])"), /"mentions": \["@y"\]/);
    assert.match(run("post_tweet(content='d')"), /"mentions": \["@x"\]/);
    // A new episode starts from an empty default (kept on purpose: docs/environments/bfcl.md).
    const next = new BfclRuntime(["TwitterAPI"], structuredClone(scenario), { longContext: false, messages });
    assert.match(next.execute(parsePythonCalls("post_tweet(content='next')")[0]).result, /"mentions": \[\]/);
  }
});
