import { test } from "node:test";
import assert from "node:assert/strict";
import { clientKey, parseTrustedProxies, resolveClientAddress } from "./trusted-proxies";

test("with no trusted proxy the client is the socket's peer, whatever X-Forwarded-For claims", () => {
  const none = parseTrustedProxies(undefined);
  assert.equal(resolveClientAddress("127.0.0.1", "203.0.113.9", none), "127.0.0.1");
  assert.equal(resolveClientAddress("::ffff:192.0.2.4", "203.0.113.9, 10.0.0.1", none), "192.0.2.4");
});

test("behind trusted proxies the client is the right-most hop they do not vouch for", () => {
  const trusted = parseTrustedProxies("127.0.0.1, 10.0.0.0/8, ::1");
  // A client that writes its own X-Forwarded-For through an appending proxy: the forged entries are left of its own.
  assert.equal(resolveClientAddress("127.0.0.1", "6.6.6.6, 203.0.113.9", trusted), "203.0.113.9");
  assert.equal(resolveClientAddress("127.0.0.1", "6.6.6.6, 203.0.113.9, 10.1.2.3", trusted), "203.0.113.9", "two proxies");
  assert.equal(resolveClientAddress("::ffff:127.0.0.1", "203.0.113.9:51234", trusted), "203.0.113.9", "a port is dropped");
  assert.equal(resolveClientAddress("::1", "[2001:db8::7]:443", trusted), "2001:db8::7");
  assert.equal(resolveClientAddress("127.0.0.1", "10.0.0.5, 10.0.0.6", trusted), "10.0.0.5", "all trusted: the left-most");
  assert.equal(resolveClientAddress("127.0.0.1", null, trusted), "127.0.0.1");
  assert.equal(resolveClientAddress("127.0.0.1", "garbage, 10.0.0.5", trusted), "garbage", "no proxy writes that: it is the client");
  assert.equal(resolveClientAddress("192.0.2.50", "6.6.6.6", trusted), "192.0.2.50", "an untrusted peer's header is ignored");
});

test("a bad ROLLOUT_LAB_TRUSTED_PROXIES entry is an error naming the variable and the entry", () => {
  for (const bad of ["localhost", "10.0.0.0/33", "::1/129", "1.2.3.4/8/1", "10.0.0.0/x"]) {
    assert.throws(
      () => parseTrustedProxies(bad),
      new RegExp(`ROLLOUT_LAB_TRUSTED_PROXIES lists "${bad.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}"`),
      bad,
    );
  }
  assert.equal(parseTrustedProxies("fd00::/8").has("fd12::1"), true);
  assert.equal(parseTrustedProxies("fd00::/8").has("fe80::1"), false);
});

test("an IPv6 client is counted by its /64, so rotating addresses within it is one client; IPv4 by its address", () => {
  assert.equal(clientKey("2001:db8:1:2::1"), clientKey("2001:db8:1:2:ffff:eeee:dddd:cccc"));
  assert.notEqual(clientKey("2001:db8:1:2::1"), clientKey("2001:db8:1:3::1"));
  assert.equal(clientKey("2001:db8:1:2::1"), "2001:db8:1:2::/64");
  assert.equal(clientKey("203.0.113.9"), "203.0.113.9");
  assert.equal(clientKey("::ffff:203.0.113.9"), "203.0.113.9");
  assert.equal(clientKey("unknown"), "unknown");
});
