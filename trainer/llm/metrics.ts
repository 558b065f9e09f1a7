/**
 * Per-step LLM metrics from the call records, under the stable `llm/*` keys the dashboard charts. Latency
 * percentiles count only real requests: cached hits (0 ms) and offline calls would otherwise hide a slow endpoint.
 */
import { LLM_ROLES, type LlmCallRecord } from "../../lib/conversation";

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx];
}

export function summariseLlmCalls(records: readonly LlmCallRecord[]): Record<string, number> {
  const remote = records.filter((r) => !r.cached && r.endpoint !== "offline");
  const latencies = remote.map((r) => r.latencyMs).sort((a, b) => a - b);
  const out: Record<string, number> = {
    "llm/calls": records.length,
    "llm/errors": records.filter((r) => r.error !== null).length,
    "llm/retries": records.filter((r) => r.attempt > 1).length,
    "llm/cached": records.filter((r) => r.cached).length,
    "llm/prompt_tokens": records.reduce((a, r) => a + r.promptTokens, 0),
    "llm/completion_tokens": records.reduce((a, r) => a + r.completionTokens, 0),
    "llm/cost_usd": records.reduce((a, r) => a + r.costUsd, 0),
  };
  if (latencies.length > 0) {
    out["llm/latency_p50_ms"] = percentile(latencies, 50);
    out["llm/latency_p95_ms"] = percentile(latencies, 95);
  }
  for (const role of LLM_ROLES) {
    const n = records.filter((r) => r.role === role).length;
    if (n > 0) out[`llm/calls_${role}`] = n;
  }
  return out;
}
