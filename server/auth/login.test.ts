import { test } from "node:test";
import assert from "node:assert/strict";
import { cookieSecure } from "./login";

test("the session cookie is Secure by configuration: ROLLOUT_LAB_COOKIE_SECURE, else an https public URL", () => {
  assert.equal(cookieSecure({}), false);
  assert.equal(cookieSecure({ ROLLOUT_LAB_PUBLIC_URL: "https://rl.example.com" }), true);
  assert.equal(cookieSecure({ ROLLOUT_LAB_PUBLIC_URL: "https://rl.example.com", ROLLOUT_LAB_COOKIE_SECURE: "false" }), false);
  assert.equal(cookieSecure({ ROLLOUT_LAB_COOKIE_SECURE: "true" }), true);
});
