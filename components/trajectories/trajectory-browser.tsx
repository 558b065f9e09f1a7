"use client";
/**
 * Every trajectory of a run, filtered and sorted on the server, one page at a time. The URL holds the state, so
 * a view can be shared and the inspector walks the same order with j/k.
 */
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useState, type FormEvent } from "react";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/providers/trpc-provider";
import { QueryState } from "./badges";
import {
  DEFAULT_STATE,
  PAGE_SIZE,
  SORTS,
  STATUSES,
  describeFilters,
  parseBrowserQuery,
  toBrowserQuery,
  toListInput,
  type BrowserState,
} from "./browser-query";
import { Pager, TrajectoryTable } from "./trajectory-table";

export function TrajectoryBrowser({ runId }: { runId: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const state = parseBrowserQuery(params);
  const run = useQuery(trpc.runs.get.queryOptions({ id: runId }));
  const facets = useQuery(trpc.trajectories.facets.queryOptions({ runId }));
  const list = useQuery({ ...trpc.trajectories.list.queryOptions(toListInput(runId, state)), placeholderData: keepPreviousData });

  const go = (next: BrowserState) => {
    const q = toBrowserQuery(next);
    router.replace(q ? `${pathname}?${q}` : pathname, { scroll: false });
  };
  const update = (patch: Partial<BrowserState>) => go({ ...state, page: 1, ...patch });

  return (
    <section className="space-y-4">
      <header className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
        <h1 className="text-xl font-semibold">Trajectories</h1>
        <Link href={`/runs/${runId}`} className="truncate text-sm text-blue-700 hover:underline">
          {run.data?.name ?? "run"}
        </Link>
        <Link href={`/runs/${runId}/groups`} className="text-sm text-blue-700 hover:underline">
          Groups
        </Link>
      </header>
      <FilterForm
        key={params.toString()}
        state={state}
        taskIds={facets.data?.taskIds ?? []}
        endReasons={facets.data?.endReasons ?? []}
        components={facets.data?.components ?? []}
        onApply={update}
      />
      <div className="flex flex-wrap items-center gap-3 text-sm">
        <label className="flex items-center gap-1">
          Sort
          <select
            aria-label="Sort by"
            className="rounded border border-slate-300 px-2 py-1"
            value={state.sort}
            onChange={(e) => update({ sort: e.target.value as BrowserState["sort"] })}
          >
            {SORTS.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <select
          aria-label="Direction"
          className="rounded border border-slate-300 px-2 py-1"
          value={state.dir}
          onChange={(e) => update({ dir: e.target.value as BrowserState["dir"] })}
        >
          <option value="asc">ascending</option>
          <option value="desc">descending</option>
        </select>
        <fieldset className="flex flex-wrap items-center gap-2">
          <legend className="sr-only">Status</legend>
          {STATUSES.map((s) => (
            <label key={s} className="flex items-center gap-1">
              <input
                type="checkbox"
                checked={state.status.includes(s)}
                onChange={(e) => update({ status: e.target.checked ? [...state.status, s] : state.status.filter((x) => x !== s) })}
              />
              {s}
            </label>
          ))}
        </fieldset>
        {list.isFetching && !list.isLoading && <span className="text-xs text-slate-400">updating…</span>}
      </div>
      <QueryState loading={list.isLoading} error={list.error} what="trajectories" />
      {list.data?.total === 0 && <EmptyResult state={state} onClear={() => go({ ...DEFAULT_STATE, sort: state.sort, dir: state.dir })} />}
      {list.data && list.data.total > 0 && (
        <>
          <TrajectoryTable runId={runId} rows={list.data.items} query={toBrowserQuery(state, { includePage: false })} />
          <Pager
            offset={list.data.offset}
            limit={PAGE_SIZE}
            total={list.data.total}
            totalIsLowerBound={list.data.totalIsLowerBound}
            onPage={(page) => go({ ...state, page })}
          />
        </>
      )}
    </section>
  );
}

/** Says which filters emptied the list, with a way out. */
function EmptyResult({ state, onClear }: { state: BrowserState; onClear: () => void }) {
  const filters = describeFilters(state);
  if (filters.length === 0) return <p className="text-sm text-slate-500">No trajectories recorded yet.</p>;
  return (
    <p className="text-sm text-slate-500" data-testid="empty-result">
      No trajectories match {filters.join(", ")}.{" "}
      <button type="button" onClick={onClear} className="text-blue-700 hover:underline">
        Clear filters
      </button>
    </p>
  );
}

/** A filter chosen from the values the run has (its facets); the empty choice means any. */
function FacetSelect({
  label,
  any = "Any",
  value,
  options,
  onPick,
}: {
  label: string;
  any?: string;
  value: string | undefined;
  options: string[];
  onPick: (value: string | undefined) => void;
}) {
  return (
    <select
      aria-label={label}
      className="max-w-56 rounded border border-slate-300 px-2 py-1 text-sm"
      value={value ?? ""}
      onChange={(e) => onPick(e.target.value || undefined)}
    >
      <option value="">{any}</option>
      {options.map((o) => (
        <option key={o}>{o}</option>
      ))}
    </select>
  );
}

/** A from–to pair of number boxes (typed text until the form is applied). */
function RangeInputs(props: {
  label: string;
  names: [string, string];
  placeholders: [string, string];
  integer?: boolean;
  values: [string, string];
  onChange: [(e: { target: { value: string } }) => void, (e: { target: { value: string } }) => void];
}) {
  return (
    <label className="flex flex-col text-xs text-slate-600">
      {props.label}
      <span className="flex gap-1">
        {[0, 1].map((i) => (
          <input
            key={i}
            aria-label={props.names[i]}
            inputMode={props.integer ? "numeric" : "decimal"}
            placeholder={props.placeholders[i]}
            className="w-20 rounded border border-slate-300 px-2 py-1"
            value={props.values[i]}
            onChange={props.onChange[i]}
          />
        ))}
      </span>
    </label>
  );
}

function parseOptional(v: string, integer: boolean): number | undefined {
  if (v.trim() === "") return undefined;
  const n = Number(v);
  if (!Number.isFinite(n)) return undefined;
  return integer ? Math.max(0, Math.trunc(n)) : n;
}

/** Text and range inputs apply on submit (Enter or the button), so typing does not fire a query per keystroke. */
function FilterForm({
  state,
  taskIds,
  endReasons,
  components,
  onApply,
}: {
  state: BrowserState;
  taskIds: string[];
  endReasons: string[];
  components: string[];
  onApply: (patch: Partial<BrowserState>) => void;
}) {
  const [draft, setDraft] = useState({
    stepMin: state.stepMin?.toString() ?? "",
    stepMax: state.stepMax?.toString() ?? "",
    rewardMin: state.rewardMin?.toString() ?? "",
    rewardMax: state.rewardMax?.toString() ?? "",
    text: state.text ?? "",
    verdict: state.verdict ?? "",
    componentMin: state.componentMin?.toString() ?? "",
  });
  const set = (k: keyof typeof draft) => (e: { target: { value: string } }) => setDraft({ ...draft, [k]: e.target.value });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onApply({
      stepMin: parseOptional(draft.stepMin, true),
      stepMax: parseOptional(draft.stepMax, true),
      rewardMin: parseOptional(draft.rewardMin, false),
      rewardMax: parseOptional(draft.rewardMax, false),
      text: draft.text.trim() || undefined,
      verdict: draft.verdict.trim() || undefined,
      componentMin: parseOptional(draft.componentMin, false),
    });
  };
  const input = "w-20 rounded border border-slate-300 px-2 py-1";
  return (
    <form onSubmit={submit} className="flex flex-wrap items-end gap-3 rounded border border-slate-200 bg-white p-3 text-sm">
      <RangeInputs
        label="Steps"
        names={["Step from", "Step to"]}
        placeholders={["from", "to"]}
        integer
        values={[draft.stepMin, draft.stepMax]}
        onChange={[set("stepMin"), set("stepMax")]}
      />
      <RangeInputs
        label="Reward"
        names={["Reward from", "Reward to"]}
        placeholders={["min", "max"]}
        values={[draft.rewardMin, draft.rewardMax]}
        onChange={[set("rewardMin"), set("rewardMax")]}
      />
      <label className="flex flex-col text-xs text-slate-600">
        Task
        <FacetSelect label="Task" any="All tasks" value={state.taskId} options={taskIds} onPick={(taskId) => onApply({ taskId })} />
      </label>
      <label className="flex flex-col text-xs text-slate-600">
        End reason
        <FacetSelect label="End reason" value={state.endReason} options={endReasons} onPick={(endReason) => onApply({ endReason })} />
      </label>
      <label className="flex flex-col text-xs text-slate-600">
        Component
        <span className="flex gap-1">
          <FacetSelect
            label="Reward component"
            value={state.component}
            options={components}
            onPick={(component) => onApply({ component })}
          />
          <input
            aria-label="Component at least"
            inputMode="decimal"
            placeholder="≥"
            className={input}
            value={draft.componentMin}
            onChange={set("componentMin")}
          />
        </span>
      </label>
      <label className="flex min-w-32 flex-col text-xs text-slate-600">
        Verdict text
        <input
          aria-label="Search verdicts"
          placeholder="e.g. wrong date"
          className="rounded border border-slate-300 px-2 py-1 text-sm"
          value={draft.verdict}
          onChange={set("verdict")}
        />
      </label>
      <label className="flex min-w-40 flex-1 flex-col text-xs text-slate-600">
        Text in conversation
        <input
          data-search
          aria-label="Search conversations"
          placeholder="e.g. refund"
          className="rounded border border-slate-300 px-2 py-1 text-sm"
          value={draft.text}
          onChange={set("text")}
        />
      </label>
      <button type="submit" className="rounded bg-blue-700 px-3 py-1 text-white hover:bg-blue-800">
        Apply
      </button>
      <button
        type="button"
        className="rounded border border-slate-300 px-3 py-1"
        onClick={() =>
          onApply({
            stepMin: undefined,
            stepMax: undefined,
            rewardMin: undefined,
            rewardMax: undefined,
            text: undefined,
            taskId: undefined,
            endReason: undefined,
            verdict: undefined,
            component: undefined,
            componentMin: undefined,
            status: [],
          })
        }
      >
        Clear
      </button>
    </form>
  );
}
