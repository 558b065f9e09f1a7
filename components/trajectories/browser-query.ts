/**
 * The trajectory browser's state lives in the URL (`?status=unscored&sort=reward&dir=desc&page=2`), so a filtered
 * view can be shared and the inspector can walk the same ordering with j/k. Pure parse/serialise, tested.
 */
export const STATUSES = ["ok", "truncated", "unscored", "error"] as const;
export type TrajectoryStatusName = (typeof STATUSES)[number];
export const SORTS = ["step", "reward", "advantage", "turns"] as const;
export type SortName = (typeof SORTS)[number];

export interface BrowserState {
  stepMin?: number;
  stepMax?: number;
  rewardMin?: number;
  rewardMax?: number;
  status: TrajectoryStatusName[];
  taskId?: string;
  text?: string;
  endReason?: string;
  /** Text in the verdict (the judge's reasoning). */
  verdict?: string;
  component?: string;
  componentMin?: number;
  sort: SortName;
  dir: "asc" | "desc";
  /** 1-based page number. */
  page: number;
}

export const PAGE_SIZE = 50;
/**
 * The latest step first, as the task and group pages list theirs: a researcher opens the list to see what the policy
 * does now, and step 0 is an untrained policy's noise.
 */
export const DEFAULT_STATE: BrowserState = { status: [], sort: "step", dir: "desc", page: 1 };

interface ParamsLike {
  get(name: string): string | null;
}

function num(params: ParamsLike, key: string, integer: boolean): number | undefined {
  const raw = params.get(key);
  if (raw === null || raw.trim() === "") return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n)) return undefined;
  return integer ? Math.max(0, Math.trunc(n)) : n;
}

function text(params: ParamsLike, key: string): string | undefined {
  const v = params.get(key)?.trim();
  return v ? v.slice(0, 200) : undefined;
}

/** Unknown or malformed values fall back to defaults rather than erroring: a hand-edited URL still opens. */
export function parseBrowserQuery(params: ParamsLike): BrowserState {
  const status = (params.get("status") ?? "")
    .split(",")
    .filter((s): s is TrajectoryStatusName => (STATUSES as readonly string[]).includes(s));
  const sort = params.get("sort");
  const dir = params.get("dir");
  return {
    stepMin: num(params, "stepMin", true),
    stepMax: num(params, "stepMax", true),
    rewardMin: num(params, "rewardMin", false),
    rewardMax: num(params, "rewardMax", false),
    status: [...new Set(status)],
    taskId: text(params, "task"),
    text: text(params, "q"),
    endReason: text(params, "end"),
    verdict: text(params, "verdict"),
    component: text(params, "comp"),
    componentMin: num(params, "compMin", false),
    sort: (SORTS as readonly string[]).includes(sort ?? "") ? (sort as SortName) : DEFAULT_STATE.sort,
    dir: dir === "desc" ? "desc" : dir === "asc" ? "asc" : DEFAULT_STATE.dir,
    page: Math.max(1, num(params, "page", true) ?? 1),
  };
}

/** The query string (without "?") for a state; defaults are omitted so URLs stay short. */
export function toBrowserQuery(state: BrowserState, options: { includePage?: boolean } = {}): string {
  const q = new URLSearchParams();
  if (state.stepMin !== undefined) q.set("stepMin", String(state.stepMin));
  if (state.stepMax !== undefined) q.set("stepMax", String(state.stepMax));
  if (state.rewardMin !== undefined) q.set("rewardMin", String(state.rewardMin));
  if (state.rewardMax !== undefined) q.set("rewardMax", String(state.rewardMax));
  if (state.status.length) q.set("status", state.status.join(","));
  if (state.taskId) q.set("task", state.taskId);
  if (state.text) q.set("q", state.text);
  if (state.endReason) q.set("end", state.endReason);
  if (state.verdict) q.set("verdict", state.verdict);
  if (state.component) q.set("comp", state.component);
  if (state.componentMin !== undefined) q.set("compMin", String(state.componentMin));
  if (state.sort !== DEFAULT_STATE.sort) q.set("sort", state.sort);
  if (state.dir !== DEFAULT_STATE.dir) q.set("dir", state.dir);
  if ((options.includePage ?? true) && state.page > 1) q.set("page", String(state.page));
  // Commas are legal in a query string; leaving them unescaped keeps `status=unscored,error` readable.
  return q.toString().replace(/%2C/gi, ",");
}

/** The filter part of the tRPC input (shared by `trajectories.list` and `trajectories.neighbors`). */
export function toFilterInput(runId: string, s: BrowserState) {
  return {
    runId,
    stepMin: s.stepMin,
    stepMax: s.stepMax,
    rewardMin: s.rewardMin,
    rewardMax: s.rewardMax,
    status: s.status.length ? s.status : undefined,
    taskId: s.taskId,
    text: s.text,
    endReason: s.endReason,
    verdict: s.verdict,
    component: s.component,
    componentMin: s.component ? s.componentMin : undefined,
    sort: s.sort,
    dir: s.dir,
  };
}

export function toListInput(runId: string, s: BrowserState, pageSize = PAGE_SIZE) {
  return { ...toFilterInput(runId, s), limit: pageSize, offset: (s.page - 1) * pageSize };
}

/** The active filters in words, for an empty result ("status truncated", "steps 3–5", "text "refund""). */
export function describeFilters(s: BrowserState): string[] {
  const out: string[] = [];
  if (s.stepMin !== undefined || s.stepMax !== undefined) {
    out.push(s.stepMin === s.stepMax ? `step ${s.stepMin}` : `steps ${s.stepMin ?? "…"}–${s.stepMax ?? "…"}`);
  }
  if (s.rewardMin !== undefined || s.rewardMax !== undefined) out.push(`reward ${s.rewardMin ?? "…"}–${s.rewardMax ?? "…"}`);
  if (s.status.length) out.push(`status ${s.status.join(" or ")}`);
  if (s.taskId) out.push(`task ${s.taskId}`);
  if (s.text) out.push(`text "${s.text}"`);
  if (s.endReason) out.push(`end reason ${s.endReason}`);
  if (s.verdict) out.push(`verdict "${s.verdict}"`);
  if (s.component) out.push(s.componentMin !== undefined ? `${s.component} ≥ ${s.componentMin}` : `component ${s.component}`);
  return out;
}
