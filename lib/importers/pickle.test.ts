import { test } from "node:test";
import assert from "node:assert/strict";
import { field, isCall, readPickle, PickleError, type PickleValue } from "./pickle";

/**
 * Python 3.11's pickle.dumps at protocols 2, 4 and 5 of
 *   {"ints": [0, 1, 255, 256, 65535, 65536, -1, -2**31, 2**40, -(2**70)], "float": 2.5, "neg": -0.125,
 *    "s": "héllo ✓", "b": b"\x00\x01\xff", "t": (1, "two", (3,)), "empty": (), "set": {7}, "fs": frozenset({8}),
 *    "none": None, "flags": [True, False], "nested": {"k": [{"x": 1}]}, "long": "ab" * 130, (1, 2): "tuple key",
 *    "od": collections.OrderedDict(a=1), "shared": [shared, shared]}   with shared = [1, 2]
 */
const PICKLES: Record<number, string> = {
  2: "gAJ9cQAoWAQAAABpbnRzcQFdcQIoSwBLAUv/TQABTf//SgAAAQBK/////0oAAACAigYAAAAAAAGKCQAAAAAAAAAAwGVYBQAAAGZsb2F0cQNHQAQAAAAAAABYAwAAAG5lZ3EER7/AAAAAAAAAWAEAAABzcQVYCgAAAGjDqWxsbyDinJNxBlgBAAAAYnEHY19jb2RlY3MKZW5jb2RlCnEIWAQAAAAAAcO/cQlYBgAAAGxhdGluMXEKhnELUnEMWAEAAAB0cQ1LAVgDAAAAdHdvcQ5LA4VxD4dxEFgFAAAAZW1wdHlxESlYAwAAAHNldHESY19fYnVpbHRpbl9fCnNldApxE11xFEsHYYVxFVJxFlgCAAAAZnNxF2NfX2J1aWx0aW5fXwpmcm96ZW5zZXQKcRhdcRlLCGGFcRpScRtYBAAAAG5vbmVxHE5YBQAAAGZsYWdzcR1dcR4oiIllWAYAAABuZXN0ZWRxH31xIFgBAAAAa3EhXXEifXEjWAEAAAB4cSRLAXNhc1gEAAAAbG9uZ3ElWAQBAABhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYnEmSwFLAoZxJ1gJAAAAdHVwbGUga2V5cShYAgAAAG9kcSljY29sbGVjdGlvbnMKT3JkZXJlZERpY3QKcSopUnErWAEAAABhcSxLAXNYBgAAAHNoYXJlZHEtXXEuKF1xLyhLAUsCZWgvZXUu",
  4: "gASVQwIAAAAAAAB9lCiMBGludHOUXZQoSwBLAUv/TQABTf//SgAAAQBK/////0oAAACAigYAAAAAAAGKCQAAAAAAAAAAwGWMBWZsb2F0lEdABAAAAAAAAIwDbmVnlEe/wAAAAAAAAIwBc5SMCmjDqWxsbyDinJOUjAFilEMDAAH/lIwBdJRLAYwDdHdvlEsDhZSHlIwFZW1wdHmUKYwDc2V0lI+UKEsHkIwCZnOUKEsIkZSMBG5vbmWUTowFZmxhZ3OUXZQoiIlljAZuZXN0ZWSUfZSMAWuUXZR9lIwBeJRLAXNhc4wEbG9uZ5RYBAEAAGFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFilEsBSwKGlIwJdHVwbGUga2V5lIwCb2SUjAtjb2xsZWN0aW9uc5SMC09yZGVyZWREaWN0lJOUKVKUjAFhlEsBc4wGc2hhcmVklF2UKF2UKEsBSwJlaCdldS4=",
  5: "gAWVQwIAAAAAAAB9lCiMBGludHOUXZQoSwBLAUv/TQABTf//SgAAAQBK/////0oAAACAigYAAAAAAAGKCQAAAAAAAAAAwGWMBWZsb2F0lEdABAAAAAAAAIwDbmVnlEe/wAAAAAAAAIwBc5SMCmjDqWxsbyDinJOUjAFilEMDAAH/lIwBdJRLAYwDdHdvlEsDhZSHlIwFZW1wdHmUKYwDc2V0lI+UKEsHkIwCZnOUKEsIkZSMBG5vbmWUTowFZmxhZ3OUXZQoiIlljAZuZXN0ZWSUfZSMAWuUXZR9lIwBeJRLAXNhc4wEbG9uZ5RYBAEAAGFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFilEsBSwKGlIwJdHVwbGUga2V5lIwCb2SUjAtjb2xsZWN0aW9uc5SMC09yZGVyZWREaWN0lJOUKVKUjAFhlEsBc4wGc2hhcmVklF2UKF2UKEsBSwJlaCdldS4=",
};

const bytes = (b64: string) => new Uint8Array(Buffer.from(b64, "base64"));

for (const [protocol, b64] of Object.entries(PICKLES)) {
  test(`pickle protocol ${protocol}: Python's values arrive as plain data; classes and functions only as names`, () => {
    const v = readPickle(bytes(b64));
    assert.ok(v instanceof Map);
    assert.deepEqual(field(v, "ints"), [0, 1, 255, 256, 65535, 65536, -1, -(2 ** 31), 2 ** 40, -(2n ** 70n)]);
    assert.equal(field(v, "float"), 2.5);
    assert.equal(field(v, "neg"), -0.125);
    assert.equal(field(v, "s"), "héllo ✓");
    assert.deepEqual(field(v, "t"), [1, "two", [3]]);
    assert.deepEqual(field(v, "empty"), []);
    assert.equal(field(v, "none"), null);
    assert.deepEqual(field(v, "flags"), [true, false]);
    assert.deepEqual(field(field(v, "nested"), "k"), [new Map([["x", 1]])]);
    assert.equal(field(v, "long"), "ab".repeat(130));
    assert.equal([...v.entries()].find(([k]) => Array.isArray(k))?.[1], "tuple key");
    const shared = field(v, "shared") as PickleValue[][];
    assert.equal(shared[0], shared[1], "a memoised object is the same object twice");
    const od = field(v, "od");
    assert.ok(isCall(od) && JSON.stringify(od.$call) === '{"$global":"collections.OrderedDict"}', "a class is only named");
    assert.deepEqual(od.items, new Map([["a", 1]]), "items set on a dict subclass are kept");
    if (Number(protocol) >= 4) {
      assert.deepEqual(field(v, "b"), new Uint8Array([0, 1, 255]));
      assert.deepEqual(field(v, "set"), new Set([7]));
      assert.deepEqual(field(v, "fs"), new Set([8]));
    } else {
      // protocol 2 has no bytes or set opcodes: Python pickles them as calls, which stay calls here
      assert.ok(isCall(field(v, "b")) && isCall(field(v, "set")));
    }
  });
}

test("a cut or foreign pickle fails with a clear error naming the byte", () => {
  const whole = bytes(PICKLES[4]);
  assert.throws(
    () => readPickle(whole.subarray(0, 40)),
    (e: Error) => e instanceof PickleError && /ends early \(at byte \d+\)/.test(e.message),
  );
  assert.throws(() => readPickle(new TextEncoder().encode("not a pickle")), /opcode 0x6e is not one this reader knows/);
});
