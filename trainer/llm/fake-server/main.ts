/**
 * `npm run llm:fake -- --port 8787 --latency 200 --fault-rate 0.3 --faults rate_limit,server_error --seed 7`
 * Serves the loopback OpenAI-compatible API until interrupted. Point a role at it with
 * `baseUrl: "http://127.0.0.1:8787/v1"` (no apiKeyEnv needed).
 */
import { parseArgs } from "node:util";
import { FAULT_KINDS, startFakeLlmServer, type FaultKind } from "./server";

const { values } = parseArgs({
  options: {
    port: { type: "string", default: "8787" },
    host: { type: "string", default: "127.0.0.1" },
    latency: { type: "string", default: "0" },
    "fault-rate": { type: "string", default: "0" },
    faults: { type: "string" },
    "retry-after": { type: "string", default: "1" },
    seed: { type: "string", default: "1" },
    help: { type: "boolean", default: false },
  },
});

if (values.help) {
  console.log(`flags: --port N --host H --latency MS --fault-rate 0..1 --faults ${FAULT_KINDS.join(",")} --retry-after SECONDS --seed N`);
  process.exit(0);
}

const kinds = values.faults ? values.faults.split(",").map((s) => s.trim()) : undefined;
const unknown = kinds?.filter((k) => !(FAULT_KINDS as readonly string[]).includes(k)) ?? [];
if (unknown.length > 0) {
  console.error(`unknown fault kind(s) ${unknown.join(", ")}; valid: ${FAULT_KINDS.join(", ")}`);
  process.exit(2);
}
const num = (name: string, v: string): number => {
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) {
    console.error(`--${name} must be a non-negative number, got "${v}"`);
    process.exit(2);
  }
  return n;
};

const server = await startFakeLlmServer({
  port: num("port", values.port),
  host: values.host,
  latencyMs: num("latency", values.latency),
  faults: {
    rate: num("fault-rate", values["fault-rate"]),
    kinds: kinds as FaultKind[] | undefined,
    retryAfter: values["retry-after"],
    seed: num("seed", values.seed),
  },
});
console.log(
  JSON.stringify({ url: server.url, latencyMs: num("latency", values.latency), faultRate: num("fault-rate", values["fault-rate"]) }),
);

const shutdown = (): void => {
  console.log(JSON.stringify({ stats: server.stats }));
  void server.close().then(() => process.exit(0));
};
process.on("SIGINT", shutdown);
process.on("SIGTERM", shutdown);
