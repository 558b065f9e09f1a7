"use client";
/** Final environment state against the expected one (tau-bench-style grading), differing fields first. */
import { diffStates, summarizeStateDiff } from "@/lib/state-diff";

const KIND_STYLE = { changed: "bg-amber-50", missing: "bg-red-50", unexpected: "bg-violet-50", equal: "" } as const;
const show = (v: unknown) => (v === undefined ? "—" : JSON.stringify(v));

export function StateDiffView({ expected, actual }: { expected: unknown; actual: unknown }) {
  if (expected == null && actual == null)
    return <p className="text-sm text-slate-500">This environment records no final or expected state.</p>;
  if (expected == null)
    return (
      <p className="text-sm text-slate-500">
        No expected state to compare with; final state: <code className="text-xs">{JSON.stringify(actual)}</code>
      </p>
    );
  const summary = summarizeStateDiff(expected, actual);
  const entries = diffStates(expected, actual, { includeEqual: true });
  const differing = entries.filter((e) => e.kind !== "equal");
  const equal = entries.filter((e) => e.kind === "equal");
  return (
    <div className="space-y-2" data-testid="state-diff">
      <p className={`text-sm ${summary.matches ? "text-emerald-700" : "text-red-700"}`}>
        {summary.matches
          ? `Final state matches the expected state (${summary.equal} fields).`
          : `${summary.changed} changed, ${summary.missing} missing, ${summary.unexpected} unexpected; ${summary.equal} equal.`}
      </p>
      {differing.length > 0 && <DiffTable rows={differing} />}
      {equal.length > 0 && (
        <details>
          <summary className="cursor-pointer text-xs text-slate-500">{equal.length} equal fields</summary>
          <DiffTable rows={equal} />
        </details>
      )}
    </div>
  );
}

function DiffTable({ rows }: { rows: ReturnType<typeof diffStates> }) {
  return (
    <div className="overflow-x-auto">
      <table className="w-full text-left font-mono text-xs">
        <thead className="text-slate-500">
          <tr>
            <th className="px-2 py-1">path</th>
            <th className="px-2 py-1">expected</th>
            <th className="px-2 py-1">final</th>
            <th className="px-2 py-1">kind</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.path} className={`border-t border-slate-100 ${KIND_STYLE[r.kind]}`}>
              <td className="break-all px-2 py-1">{r.path || "(root)"}</td>
              <td className="break-all px-2 py-1">{show(r.expected)}</td>
              <td className="break-all px-2 py-1">{show(r.actual)}</td>
              <td className="px-2 py-1">{r.kind}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
