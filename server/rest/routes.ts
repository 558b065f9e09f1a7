/**
 * The REST API under /api/v1 as one table: each row maps a method + path to a tRPC procedure (so REST and the
 * dashboard share the same zod input and the same service call) or, for the JSONL export, to a streaming service.
 * The dispatcher (handler.ts) and the OpenAPI document (openapi.ts) are both generated from this table.
 */
import { z } from "zod";
import { runConfigSchema } from "../../lib/run-config";
import { MAX_HISTORY_BODY_BYTES } from "../../lib/ingest";
import { runNotesSchema } from "../../lib/run-notes";
import { exportRunJsonl } from "../services/export";
import type { PrismaClient } from "../../db/client";
import type { TokenScope } from "../services/tokens";

interface RouteBase {
  method: "GET" | "POST";
  /** OpenAPI-style path below /api/v1, e.g. "/runs/{id}/cancel". */
  path: string;
  scope: TokenScope;
  summary: string;
  description?: string;
  tag: "runs" | "trajectories" | "export" | "rewards" | "ingest" | "evaluations";
  /** Path parameter → input field it fills. */
  params?: Record<string, string>;
  /** Request body limit when larger than the API's 1 MiB (the ingest batch route). */
  maxBodyBytes?: number;
}

export interface ProcedureRoute extends RouteBase {
  kind: "procedure";
  /** Dotted tRPC procedure path, e.g. "runActions.cancel". */
  procedure: string;
  successStatus?: 200 | 201 | 202;
  /** Fields the server fills from the authenticated token (never taken from the body). */
  launchInfo?: boolean;
  /** A create that honours the Idempotency-Key header (server/rest/idempotency.ts). */
  idempotent?: boolean;
  /** Replaces the procedure's input in the OpenAPI document where the procedure takes loosely-typed JSON. */
  documentedBody?: z.ZodType;
}

export interface StreamRoute extends RouteBase {
  kind: "jsonl";
  input: z.ZodType<Record<string, unknown>>;
  stream(db: PrismaClient, input: Record<string, unknown>): AsyncGenerator<string>;
  filename(input: Record<string, unknown>): string;
}

export type RestRoute = ProcedureRoute | StreamRoute;

const idParam = { id: "id" };
const runIdParam = { id: "runId" };

const exportInput = z
  .object({
    runId: z.string().min(1).max(64),
    split: z.string().max(40).optional().describe('Only this split ("train" or "eval").'),
    stepMin: z.number().int().min(0).max(10_000_000).optional(),
    stepMax: z.number().int().min(0).max(10_000_000).optional(),
  })
  .strict();

export const REST_ROUTES: RestRoute[] = [
  {
    kind: "procedure",
    method: "POST",
    path: "/external-runs",
    procedure: "ingest.createRun",
    scope: "ingest",
    tag: "ingest",
    successStatus: 201,
    idempotent: true,
    summary: "Create a run trained by another system (verl, SkyRL, TRL, ART, Simia-RL, τ²-bench), or reattach to one by runKey",
    description:
      "The run is shown on every page like a Rollout Lab run; workers never train it. Send its steps and samples, then finish it. " +
      'With `runKey` and `resume: "allow"` a restarted trainer gets its run back (`resumed: true`, `step`: steps recorded so far).',
  },
  {
    kind: "procedure",
    method: "GET",
    path: "/external-runs/by-key/{runKey}",
    procedure: "ingest.byKey",
    params: { runKey: "runKey" },
    scope: "ingest",
    tag: "ingest",
    summary: "The run holding a run key (an import's content key says whether the same files came in before)",
  },
  {
    kind: "procedure",
    method: "POST",
    path: "/external-runs/{id}/resume",
    procedure: "ingest.resume",
    params: runIdParam,
    scope: "ingest",
    tag: "ingest",
    summary: "Reattach to an external run (stale, failed, cancelled or finished): it runs again and accepts data",
  },
  {
    kind: "procedure",
    method: "POST",
    path: "/external-runs/{id}/steps",
    procedure: "ingest.appendSteps",
    params: runIdParam,
    scope: "ingest",
    tag: "ingest",
    summary: "Append metrics of up to 1,000 steps (a retry overwrites the same key and step)",
  },
  {
    kind: "procedure",
    method: "POST",
    path: "/external-runs/{id}/trajectories",
    procedure: "ingest.appendTrajectories",
    params: runIdParam,
    scope: "ingest",
    tag: "ingest",
    summary: "Upsert up to 200 samples with conversation, reward, components and LLM calls (by your id: stored, updated or unchanged)",
    description: "Samples sharing a step and a group key form a GRPO group (key: `group`, else `taskId`, else the first user message).",
  },
  {
    kind: "procedure",
    method: "POST",
    path: "/external-runs/{id}/batch",
    procedure: "ingest.appendHistory",
    params: runIdParam,
    scope: "ingest",
    tag: "ingest",
    maxBodyBytes: MAX_HISTORY_BODY_BYTES,
    summary: "Send a whole history in one request: up to 1,000 steps and 20,000 samples (32 MiB), written in one transaction",
  },
  {
    kind: "procedure",
    method: "POST",
    path: "/external-runs/{id}/finish",
    procedure: "ingest.finish",
    params: runIdParam,
    scope: "ingest",
    tag: "ingest",
    summary: "Mark an external run succeeded, failed or cancelled",
  },
  {
    kind: "procedure",
    method: "POST",
    path: "/runs",
    procedure: "runActions.create",
    scope: "write",
    tag: "runs",
    successStatus: 201,
    launchInfo: true,
    idempotent: true,
    summary: "Create a run",
    description:
      "Validates the RunConfig (unknown fields, ranges and API-key-looking values are rejected) and queues the run. Returns its id and dashboard URL. " +
      "`notes` (optional plain text) sit beside the config, not in it.",
    documentedBody: z.object({ config: runConfigSchema, notes: runNotesSchema.optional() }).strict(),
  },
  {
    kind: "procedure",
    method: "POST",
    path: "/preflight",
    procedure: "runActions.preflight",
    scope: "write",
    tag: "runs",
    successStatus: 202,
    summary:
      "Check a RunConfig before launching it: does the environment's opening prompt fit the policy's context, tokens / memory / time per step",
    description: "Validates the config as POST /runs does and queues the check for a trainer worker; poll GET /preflight/{id}.",
    documentedBody: z.object({ config: runConfigSchema }).strict(),
  },
  {
    kind: "procedure",
    method: "GET",
    path: "/preflight/{id}",
    procedure: "runActions.preflightResult",
    params: idParam,
    scope: "read",
    tag: "runs",
    summary: "A pre-flight check: status (queued, running, done, failed), the result with figures and problems, or the error",
  },
  {
    kind: "procedure",
    method: "GET",
    path: "/runs",
    procedure: "runs.list",
    scope: "read",
    tag: "runs",
    summary: "List runs (filters, cursor pagination)",
  },
  {
    kind: "procedure",
    method: "GET",
    path: "/runs/{id}",
    procedure: "runActions.status",
    params: idParam,
    scope: "read",
    tag: "runs",
    summary: "Get a run's status, progress, latest metrics and error",
  },
  {
    kind: "procedure",
    method: "POST",
    path: "/runs/{id}/cancel",
    procedure: "runActions.cancel",
    params: idParam,
    scope: "write",
    tag: "runs",
    summary: "Cancel a run (queued: at once; running: after the current step)",
  },
  {
    kind: "procedure",
    method: "POST",
    path: "/runs/{id}/resume",
    procedure: "runActions.resume",
    params: idParam,
    scope: "write",
    tag: "runs",
    summary: "Resume a cancelled or failed run from its last checkpoint",
  },
  {
    kind: "procedure",
    method: "POST",
    path: "/runs/{id}/notes",
    procedure: "runActions.setNotes",
    params: idParam,
    scope: "write",
    tag: "runs",
    summary: "Replace a run's notes (plain text, at most 10,000 characters; an empty string clears them), at any time",
    description: "The runs table previews them and the runs list's `search` finds a run by words in them.",
  },
  {
    kind: "procedure",
    method: "POST",
    path: "/runs/{id}/clone",
    procedure: "runActions.clone",
    params: idParam,
    scope: "write",
    tag: "runs",
    successStatus: 201,
    launchInfo: true,
    idempotent: true,
    summary: "Queue a new run with another run's config (optionally overridden)",
  },
  {
    kind: "procedure",
    method: "GET",
    path: "/runs/{id}/metrics",
    procedure: "runActions.metrics",
    params: idParam,
    scope: "read",
    tag: "runs",
    summary: "Metric series, downsampled (mean with min/max per bucket)",
  },
  {
    kind: "procedure",
    method: "GET",
    path: "/runs/{id}/health",
    procedure: "signals.health",
    params: runIdParam,
    scope: "read",
    tag: "rewards",
    summary: "Whether the run can learn: problems such as groups without reward variance, zero gradients, full contexts or failing judges",
    description:
      "Each problem is reported once with the steps it was seen on (firstStep, lastStep, steps of stepsChecked), a severity and a detail with figures.",
  },
  {
    kind: "procedure",
    method: "GET",
    path: "/runs/{id}/evaluation",
    procedure: "evaluations.get",
    params: runIdParam,
    scope: "read",
    tag: "evaluations",
    summary: "An evaluation run's scores as τ²-bench reports them: pass@1, pass^1..k, mean reward, cost, per task and overall",
    description:
      "pass^k of a task with c successes in n trials is C(c,k)/C(n,k), averaged over tasks; trials that could not be scored are left out and counted (`unscored`).",
  },
  {
    kind: "procedure",
    method: "POST",
    path: "/runs/{id}/evaluations",
    procedure: "evaluations.evaluateCheckpoint",
    params: runIdParam,
    scope: "write",
    tag: "evaluations",
    successStatus: 201,
    launchInfo: true,
    idempotent: true,
    summary: "Evaluate a training run's checkpoint (or its latest, the final policy) on a task set with k trials per task",
  },
  {
    kind: "procedure",
    method: "GET",
    path: "/environments/{name}/evaluations",
    procedure: "evaluations.environment",
    params: { name: "name" },
    scope: "read",
    tag: "evaluations",
    summary:
      "Every evaluation of an environment side by side (API models, checkpoints, the gold replay), one leaderboard per task set and k",
  },
  {
    kind: "procedure",
    method: "GET",
    path: "/runs/{id}/checkpoints",
    procedure: "runActions.checkpoints",
    params: idParam,
    scope: "read",
    tag: "runs",
    summary: "List a run's checkpoints",
  },
  {
    kind: "procedure",
    method: "GET",
    path: "/runs/{id}/trajectories",
    procedure: "trajectories.list",
    params: runIdParam,
    scope: "read",
    tag: "trajectories",
    summary: "List trajectories (filters, sort, offset pagination)",
  },
  {
    kind: "procedure",
    method: "GET",
    path: "/runs/{id}/trajectories/{trajectoryId}",
    procedure: "trajectories.get",
    params: { id: "runId", trajectoryId: "id" },
    scope: "read",
    tag: "trajectories",
    summary: "One trajectory with its conversation and every simulator/judge LLM call",
  },
  {
    kind: "procedure",
    method: "GET",
    path: "/runs/{id}/trajectories/{trajectoryId}/tokens",
    procedure: "trajectories.policyTokens",
    params: { id: "runId", trajectoryId: "id" },
    scope: "read",
    tag: "trajectories",
    summary:
      "The token sequence the policy was trained on: pieces, sampled mask, log-probs, advantages, ratios, clip branches, KL (null when not recorded)",
  },
  {
    kind: "procedure",
    method: "POST",
    path: "/runs/{id}/rescorings",
    procedure: "rescoring.create",
    params: runIdParam,
    scope: "write",
    tag: "rewards",
    summary: "Re-judge / re-score stored trajectories with another judge or weights (a background job)",
  },
  {
    kind: "procedure",
    method: "GET",
    path: "/runs/{id}/rescorings",
    procedure: "rescoring.list",
    params: runIdParam,
    scope: "read",
    tag: "rewards",
    summary: "List a run's re-scoring jobs",
  },
  {
    kind: "procedure",
    method: "GET",
    path: "/runs/{id}/rescorings/{rescoringId}",
    procedure: "rescoring.get",
    params: { id: "runId", rescoringId: "rescoringId" },
    scope: "read",
    tag: "rewards",
    summary: "A re-scoring job: progress, agreement rate, flipped verdicts with both reasonings, new advantages",
  },
  {
    kind: "procedure",
    method: "GET",
    path: "/runs/{id}/signals",
    procedure: "signals.warnings",
    params: runIdParam,
    scope: "read",
    tag: "rewards",
    summary: "Reward-hacking and simulator-failure warnings",
  },
  {
    kind: "procedure",
    method: "GET",
    path: "/runs/{id}/reliability",
    procedure: "signals.reliability",
    params: runIdParam,
    scope: "read",
    tag: "rewards",
    summary: "Judge reliability: agreement, variance and the run's noise floor",
  },
  {
    kind: "jsonl",
    method: "GET",
    path: "/runs/{id}/export.jsonl",
    params: runIdParam,
    scope: "read",
    tag: "export",
    summary: "Export trajectories as JSONL in the Simia-RL record shape (streamed)",
    input: exportInput,
    stream: (db, input) => exportRunJsonl(db, exportInput.parse(input)),
    filename: (input) => `${String(input.runId)}-trajectories.jsonl`,
  },
];

/** The route matching a method and a path below /api/v1, with its path parameters. */
export function matchRoute(
  method: string,
  path: string,
): { route: RestRoute; params: Record<string, string> } | { allowed: string[] } | null {
  const segments = path.split("/").filter(Boolean);
  const allowed: string[] = [];
  for (const route of REST_ROUTES) {
    const pattern = route.path.split("/").filter(Boolean);
    if (pattern.length !== segments.length) continue;
    const params: Record<string, string> = {};
    const ok = pattern.every((p, i) => {
      if (p.startsWith("{")) {
        params[p.slice(1, -1)] = segments[i];
        return true;
      }
      return p === segments[i];
    });
    if (!ok) continue;
    if (route.method === method) return { route, params };
    allowed.push(route.method);
  }
  return allowed.length ? { allowed } : null;
}
