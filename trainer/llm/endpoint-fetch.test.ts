/**
 * The endpoint policy where it matters: on the real openai SDK talking HTTP, at the address a request connects to.
 * The listeners here are on loopback (tests send traffic nowhere else); the "names" are resolved by a substitute
 * resolver that answers as an attacker's DNS server would.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type dns from "node:dns";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { LlmCallRecord } from "../../lib/conversation";
import { LlmClient, type LlmConfigInput } from "./index";
import { startFakeLlmServer, type FakeLlmServer } from "./fake-server/server";

const KEY = "sk-host-key-that-must-stay-home-0123456789";
let llm: FakeLlmServer;
let authorizations: string[] = [];
let other: http.Server;
let otherBase = "";
let otherRequests = 0;
let otherAnswer: (res: http.ServerResponse) => void = (res) => res.end();

before(async () => {
  llm = await startFakeLlmServer({
    reply: (req) => {
      authorizations.push(req.authorization ?? "");
      return "hello";
    },
  });
  other = http.createServer((_req, res) => {
    otherRequests++;
    otherAnswer(res);
  });
  await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
  otherBase = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
});
after(async () => {
  await llm.close();
  await new Promise((resolve) => other.close(resolve));
});

const config = (baseUrl: string): LlmConfigInput => ({
  endpoints: { judge: { baseUrl, model: "m", apiKeyEnv: "HOST_OPENAI_API_KEY" } },
  retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 1, maxRetryAfterMs: 1 },
  timeoutMs: 5_000,
});
const ask = { role: "judge" as const, messages: [{ role: "user" as const, content: "hi" }] };

/** A resolver that sends every name to loopback, as a rebinding attacker's DNS does after the first check. */
const rebinding = ((_host: string, options: unknown, callback: (e: null, a: { address: string; family: number }[]) => void) => {
  const cb = typeof options === "function" ? (options as typeof callback) : callback;
  cb(null, [{ address: "127.0.0.1", family: 4 }]);
}) as unknown as typeof dns.lookup;

async function failedCall(client: LlmClient): Promise<LlmCallRecord[]> {
  const records: LlmCallRecord[] = [];
  await assert.rejects(client.chat(ask, { onCall: (r) => records.push(r) }));
  return records;
}

test("by default a loopback endpoint is refused before the key is read or a request is made", () => {
  authorizations = [];
  assert.throws(
    () => new LlmClient(config(llm.url), { env: { HOST_OPENAI_API_KEY: KEY } }),
    /LLM role "judge": http:\/\/127\.0\.0\.1:\d+ is this machine \(loopback\).*ROLLOUT_LAB_ALLOW_PRIVATE_LLM=true/,
  );
  assert.deepEqual(authorizations, []);
});

test("a name that resolves to loopback (DNS rebinding) is refused at connection time, and not retried", async () => {
  authorizations = [];
  const url = llm.url.replace("127.0.0.1", "models.rebind.example");
  const client = new LlmClient(config(url), { env: { HOST_OPENAI_API_KEY: KEY }, lookup: rebinding });
  const records = await failedCall(client);
  assert.equal(records.length, 1, "a refusal is final");
  assert.match(records[0].error ?? "", /^refused: models\.rebind\.example \(resolved to 127\.0\.0\.1\) is this machine \(loopback\)/);
  assert.deepEqual(authorizations, [], "the key never reached the listener");

  // The operator's switch for local model servers lets the same name through, to the address that was checked.
  const allowed = new LlmClient(config(url), {
    env: { HOST_OPENAI_API_KEY: KEY, ROLLOUT_LAB_ALLOW_PRIVATE_LLM: "true" },
    lookup: rebinding,
  });
  assert.equal((await allowed.chat(ask)).text, "hello");
  assert.deepEqual(authorizations, [`Bearer ${KEY}`]);
});

test("a redirect is not followed, even to an address the operator allowed", async () => {
  otherRequests = 0;
  authorizations = [];
  const target = `${llm.url}/chat/completions`;
  otherAnswer = (res) => res.writeHead(307, { location: target }).end();
  const client = new LlmClient(config(`${otherBase}/v1`), {
    env: { HOST_OPENAI_API_KEY: KEY, ROLLOUT_LAB_LLM_BASE_URLS: "http://127.0.0.1:" },
  });
  const records = await failedCall(client);
  assert.equal(otherRequests, 1);
  assert.deepEqual(authorizations, [], "the redirect's target saw nothing");
  assert.equal(records.length, 1);
  assert.match(records[0].error ?? "", /answered a 307 redirect to http:\/\/127\.0\.0\.1:\d+; redirects are not followed/);
});

test("an endpoint's error body is kept only as a short plain excerpt", async () => {
  const page = `<!DOCTYPE html><html><body><h1>404</h1>root:x:0:0:root:/root:/bin/bash\n${"secret data ".repeat(800)}</body></html>`;
  otherAnswer = (res) => res.writeHead(404, { "content-type": "text/html" }).end(page);
  const client = new LlmClient(config(`${otherBase}/v1`), {
    env: { HOST_OPENAI_API_KEY: KEY, ROLLOUT_LAB_LLM_BASE_URLS: `${otherBase}/` },
  });
  const [record] = await failedCall(client);
  const error = record.error ?? "";
  assert.ok(error.length <= 230, `${error.length} characters stored`);
  assert.doesNotMatch(error, /[<>\n]/);
  assert.match(error, /^Error: 404 /);
});
