import { test } from "node:test";
import assert from "node:assert/strict";
import {
  apiKeyEnvProblem,
  checkLlmEndpoints,
  endpointProblems,
  endpointUrlProblem,
  llmEndpointPolicyFromEnv,
  resolvedAddressProblem,
} from "./llm-endpoint-policy";

test("by default only *_API_KEY variables may be named, and never the product's own settings", () => {
  const policy = llmEndpointPolicyFromEnv({});
  assert.equal(apiKeyEnvProblem("OPENAI_API_KEY", policy), null);
  for (const name of ["DATABASE_URL", "SESSION_SECRET", "DASHBOARD_PASSWORD", "ROLLOUT_LAB_TOKEN", "ROLLOUT_LAB_API_KEY", "PGPASSWORD"]) {
    assert.match(apiKeyEnvProblem(name, policy) ?? "", /one of Rollout Lab's own settings/, name);
  }
  assert.match(apiKeyEnvProblem("HOME", policy) ?? "", /not an allowed key variable: use a name ending in _API_KEY/);
});

test("the operator can allow more names, but not the product's own settings", () => {
  const policy = llmEndpointPolicyFromEnv({ ROLLOUT_LAB_API_KEY_ENVS: "AZURE_OPENAI_KEY, DATABASE_URL" });
  assert.equal(apiKeyEnvProblem("AZURE_OPENAI_KEY", policy), null);
  assert.notEqual(apiKeyEnvProblem("DATABASE_URL", policy), null);
});

test("by default only public http(s) endpoints: every spelling of loopback, private, link-local and metadata is refused", () => {
  const policy = llmEndpointPolicyFromEnv({});
  for (const ok of ["https://api.openai.com/v1", "http://8.8.8.8:8000/v1", "https://[2606:4700::1111]/v1", "https://models.example.com/v1"])
    assert.equal(endpointUrlProblem(ok, policy), null, ok);
  const loopback = /this machine \(loopback\).*ROLLOUT_LAB_ALLOW_PRIVATE_LLM=true.*ROLLOUT_LAB_LLM_BASE_URLS/;
  const cases: [string, RegExp][] = [
    ["http://127.0.0.1:8000/v1", loopback],
    ["http://localhost:8000/v1", loopback],
    ["http://api.localhost/v1", loopback],
    ["http://2130706433:8000/v1", loopback], // decimal
    ["http://0x7f.0.0.1:8000/v1", loopback], // hex
    ["http://0177.0.0.1:8000/v1", loopback], // octal
    ["http://127.1:8000/v1", loopback], // short form
    ["http://[::1]:8000/v1", loopback],
    ["http://[::ffff:127.0.0.1]:8000/v1", loopback], // IPv4-mapped IPv6
    ["http://[::ffff:7f00:1]:8000/v1", loopback],
    ["http://0.0.0.0:8000/v1", loopback],
    ["http://[::]:8000/v1", loopback],
    ["http://10.1.2.3/v1", /a private-network address/],
    ["http://172.20.0.5/v1", /a private-network address/],
    ["http://192.168.1.10:11434/v1", /a private-network address/],
    ["http://100.64.0.1/v1", /a private-network address/],
    ["http://[fd12::1]/v1", /a private-network address/],
    ["http://[::ffff:10.0.0.1]/v1", /a private-network address/],
    ["http://169.254.169.254/latest/meta-data", /link-local address .* metadata/],
    ["http://[fe80::1]/v1", /link-local address/],
    ["http://100.100.100.200/latest", /metadata/],
    ["http://224.0.0.1/v1", /multicast or reserved/],
    ["file:///etc/passwd", /file: URLs are not LLM endpoints: use an http:\/\/ or https:\/\/ URL/],
    ["javascript:alert(1)", /javascript: URLs are not LLM endpoints/],
    ["gopher://127.0.0.1:6379/_INFO", /gopher: URLs are not LLM endpoints/],
    ["https://user:pw@api.example.com/v1", /credentials in the URL/],
  ];
  for (const [url, why] of cases) assert.match(endpointUrlProblem(url, policy) ?? "(allowed)", why, url);
});

test("ROLLOUT_LAB_ALLOW_PRIVATE_LLM opens loopback and private ranges, never link-local, metadata or the product's own ports", () => {
  const policy = llmEndpointPolicyFromEnv({ ROLLOUT_LAB_ALLOW_PRIVATE_LLM: "true", PORT: "3100", EMBEDDED_DB_PORT: "54400" });
  for (const ok of ["http://127.0.0.1:8000/v1", "http://localhost:11434/v1", "http://192.168.1.10:8000/v1", "http://[fd00::5]/v1"])
    assert.equal(endpointUrlProblem(ok, policy), null, ok);
  assert.match(endpointUrlProblem("http://169.254.169.254/", policy) ?? "", /link-local/);
  assert.match(endpointUrlProblem("http://[fd00:ec2::254]/", policy) ?? "", /metadata/);
  for (const own of ["http://127.0.0.1:3100/api/", "http://localhost:54400/", "http://0.0.0.0:3100/"])
    assert.match(endpointUrlProblem(own, policy) ?? "", /one of Rollout Lab's own listeners \(port \d+/, own);
  assert.equal(endpointUrlProblem("https://api.example.com:3100/v1", policy), null, "a remote host on the same port is not ours");
});

test("ROLLOUT_LAB_LLM_BASE_URLS is an allowlist of parsed prefixes; a listed loopback prefix is allowed, the product's ports never", () => {
  const policy = llmEndpointPolicyFromEnv({
    ROLLOUT_LAB_LLM_BASE_URLS: "https://api.openai.com/v1,http://127.0.0.1:",
    DATABASE_URL: "postgresql://u:p@127.0.0.1:55432/db",
  });
  assert.equal(endpointUrlProblem("https://api.openai.com/v1", policy), null);
  assert.equal(endpointUrlProblem("http://127.0.0.1:8000/v1", policy), null);
  for (const bad of [
    "https://api.openai.com.evil.example/v1",
    "http://127.0.0.1:8000@evil.example/v1",
    "https://api.openai.com/v2",
    "http://localhost:8000/v1",
  ]) {
    assert.match(endpointUrlProblem(bad, policy) ?? "(allowed)", /not an allowed LLM endpoint|credentials/, bad);
  }
  assert.match(endpointUrlProblem("http://127.0.0.1:55432/", policy) ?? "", /own listeners \(port 55432/, "the database of DATABASE_URL");
  assert.match(endpointUrlProblem("http://127.0.0.1:3000/api/", policy) ?? "", /own listeners \(port 3000/, "the default web port");
});

test("a listed prefix matches whole path segments: https://host/v1 admits /v1 and /v1/chat, not /v1evil", () => {
  const policy = llmEndpointPolicyFromEnv({ ROLLOUT_LAB_LLM_BASE_URLS: "https://llm.example.com/v1,http://127.0.0.1:8000/api/" });
  for (const ok of ["https://llm.example.com/v1", "https://llm.example.com/v1/", "https://llm.example.com/v1/chat/completions"])
    assert.equal(endpointUrlProblem(ok, policy), null, ok);
  assert.equal(endpointUrlProblem("http://127.0.0.1:8000/api/v1", policy), null);
  for (const bad of [
    "https://llm.example.com/v1evil",
    "https://llm.example.com/v1.evil/x",
    "http://127.0.0.1:8000/apix",
    "http://127.0.0.1:8000/api",
  ])
    assert.match(endpointUrlProblem(bad, policy) ?? "(allowed)", /not an allowed LLM endpoint/, bad);
});

test("link-local and metadata addresses stay refused even when an operator lists their prefix", () => {
  const policy = llmEndpointPolicyFromEnv({
    ROLLOUT_LAB_LLM_BASE_URLS: "http://169.254.169.254/,http://[fe80::1]:8000/,http://100.100.100.200/",
  });
  assert.match(endpointUrlProblem("http://169.254.169.254/latest/meta-data", policy) ?? "(allowed)", /link-local address/);
  assert.match(endpointUrlProblem("http://[fe80::1]:8000/v1", policy) ?? "(allowed)", /link-local address/);
  assert.match(endpointUrlProblem("http://100.100.100.200/v1", policy) ?? "(allowed)", /metadata/);
});

test("after DNS: a name may not resolve to an address its text could not name; own listeners on any local interface", () => {
  const policy = llmEndpointPolicyFromEnv({ PORT: "3100" });
  const url = new URL("https://models.example.com/v1");
  assert.equal(resolvedAddressProblem(url, "93.184.216.34", policy), null);
  assert.match(resolvedAddressProblem(url, "127.0.0.1", policy) ?? "", /resolved to 127\.0\.0\.1\) is this machine/);
  assert.match(resolvedAddressProblem(url, "::ffff:169.254.169.254", policy) ?? "", /link-local/);
  const listed = llmEndpointPolicyFromEnv({ ROLLOUT_LAB_LLM_BASE_URLS: "http://llm.internal:8000/" });
  assert.equal(resolvedAddressProblem(new URL("http://llm.internal:8000/v1"), "10.0.0.7", listed), null, "listed: private is fine");
  assert.match(resolvedAddressProblem(new URL("http://llm.internal:8000/v1"), "169.254.169.254", listed) ?? "", /link-local/);
  const lan = llmEndpointPolicyFromEnv({ PORT: "3100", ROLLOUT_LAB_ALLOW_PRIVATE_LLM: "1" });
  assert.match(
    resolvedAddressProblem(new URL("http://me.example:3100/"), "192.168.1.4", lan, ["192.168.1.4"]) ?? "",
    /own listeners/,
    "the dashboard bound to 0.0.0.0 answers on this machine's LAN address too",
  );
});

test("every problem of a config's llm section with its field path; one function for any endpoint", () => {
  const closed = llmEndpointPolicyFromEnv({ ROLLOUT_LAB_LLM_BASE_URLS: "https://api.openai.com/v1,http://127.0.0.1:8000/" });
  assert.deepEqual(
    checkLlmEndpoints(
      {
        judge: { baseUrl: "http://attacker/v1", apiKeyEnv: "DATABASE_URL" },
        userSimulator: { baseUrl: "https://api.openai.com/v1", apiKeyEnv: "OPENAI_API_KEY" },
        concurrency: 4,
      },
      closed,
    ).map((p) => p.path.join(".")),
    ["llm.judge.apiKeyEnv", "llm.judge.baseUrl"],
  );
  assert.deepEqual(
    endpointProblems({ baseUrl: "http://10.0.0.1/v1" }, ["policy", "endpoint"], llmEndpointPolicyFromEnv({})).map((p) => p.path.join(".")),
    ["policy.endpoint.baseUrl"],
  );
});

test("the environment server's port is an own listener under the variable start.ts and `envs serve` use (ROLLOUT_LAB_ENVS_PORT), else PORT + 1", () => {
  const set = llmEndpointPolicyFromEnv({ ROLLOUT_LAB_ALLOW_PRIVATE_LLM: "true", PORT: "3100", ROLLOUT_LAB_ENVS_PORT: "4711" });
  assert.match(endpointUrlProblem("http://127.0.0.1:4711/v1", set) ?? "(allowed)", /own listeners \(port 4711/);
  const unset = llmEndpointPolicyFromEnv({ ROLLOUT_LAB_ALLOW_PRIVATE_LLM: "true", PORT: "3100" });
  assert.match(endpointUrlProblem("http://127.0.0.1:3101/v1", unset) ?? "(allowed)", /own listeners \(port 3101/);
  assert.match(
    endpointUrlProblem("http://127.0.0.1:3001/v1", llmEndpointPolicyFromEnv({ ROLLOUT_LAB_ALLOW_PRIVATE_LLM: "true" })) ?? "(allowed)",
    /own listeners \(port 3001/,
  );
});
