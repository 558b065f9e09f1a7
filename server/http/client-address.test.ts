import { test } from "node:test";
import assert from "node:assert/strict";
import { clientAddress, fromTrustedProxy, PEER_HEADER } from "./client-address";

test("the client address comes from the peer http-guard recorded; X-Forwarded-For only from a configured proxy", () => {
  const headers = new Headers({ [PEER_HEADER]: "192.0.2.4", "x-forwarded-for": "198.51.100.1" });
  assert.equal(clientAddress(headers, {}), "192.0.2.4");
  assert.equal(clientAddress(new Headers({ "x-forwarded-for": "198.51.100.1" }), {}), "unknown", "no peer recorded: no header is believed");
  const proxied = new Headers({ [PEER_HEADER]: "127.0.0.1", "x-forwarded-for": "6.6.6.6, 203.0.113.9" });
  assert.equal(clientAddress(proxied, { ROLLOUT_LAB_TRUSTED_PROXIES: "127.0.0.1" }), "203.0.113.9");
  assert.equal(clientAddress(proxied, {}), "127.0.0.1");
});

test("X-Forwarded-Host / -Proto count only on a request from a listed proxy", () => {
  const headers = new Headers({ [PEER_HEADER]: "127.0.0.1", "x-forwarded-host": "evil.example" });
  assert.equal(fromTrustedProxy(headers, {}), false);
  assert.equal(fromTrustedProxy(headers, { ROLLOUT_LAB_TRUSTED_PROXIES: "127.0.0.0/8" }), true);
  assert.equal(fromTrustedProxy(new Headers(), { ROLLOUT_LAB_TRUSTED_PROXIES: "127.0.0.0/8" }), false);
});
