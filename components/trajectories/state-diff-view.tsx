"use client";
/**
 * Final environment state against the expected one (tau-bench-style grading), differing fields first. Only the keys
 * both states declare are compared (lib/state-diff compareStates); the rest is shown as recorded, never as red.
 */
import { compareStates, type diffStates } from "@/lib/state-diff";

const KIND_STYLE = {
  changed: "bg-amber-50",
  missing: "bg-red-50",
  unexpected: "bg-violet-50",
  equal: "",
} as const;
const show = (v: unknown) => (v === undefined ? "—" : JSON.stringify(v));

function Recorded({ label, value }: { label: string; value: unknown }) {
  return (
    <p className="text-sm text-slate-600">
      {label}: <code className="break-all text-xs">{JSON.stringify(value)}</code>
    </p>
  );
}

export function StateDiffView({ expected, actual }: { expected: unknown; actual: unknown }) {
  const c = compareStates(expected, actual);
  if (c.kind === "none") return <p className="text-sm text-slate-600">This environment records no final or expected state.</p>;
  if (c.kind === "no-expected")
    return (
      <div data-testid="state-diff" data-kind={c.kind}>
        <p className="text-sm text-slate-600">No expected state: this environment has none to compare with.</p>
        <Recorded label="Final state" value={c.actual} />
      </div>
    );
  if (c.kind === "no-final")
    return (
      <div data-testid="state-diff" data-kind={c.kind}>
        <p className="text-sm text-slate-600">No final state recorded: this environment scores from the conversation.</p>
        <Recorded label="Expected" value={c.expected} />
      </div>
    );
  if (c.kind === "unrelated")
    return (
      <div className="space-y-1" data-testid="state-diff" data-kind={c.kind}>
        <p className="text-sm text-slate-600">The final and expected states share no field, so there is nothing to compare.</p>
        <Recorded label="Expected" value={c.expected} />
        <Recorded label="Final state" value={c.actual} />
      </div>
    );
  const { summary, entries } = c;
  const differing = entries.filter((e) => e.kind !== "equal");
  const equal = entries.filter((e) => e.kind === "equal");
  const compared = c.keys ? ` (compared: ${c.keys.join(", ")})` : "";
  return (
    <div className="space-y-2" data-testid="state-diff" data-kind={c.kind} data-matches={summary.matches}>
      <p className={`text-sm ${summary.matches ? "text-emerald-800" : "text-red-800"}`}>
        {summary.matches
          ? `Final state matches the expected state (${summary.equal} fields)${compared}.`
          : `${summary.changed} changed, ${summary.missing} missing, ${summary.unexpected} unexpected; ${summary.equal} equal${compared}.`}
      </p>
      {differing.length > 0 && <DiffTable rows={differing} />}
      {equal.length > 0 && (
        <details>
          <summary className="cursor-pointer text-xs text-slate-600">{equal.length} equal fields</summary>
          <DiffTable rows={equal} />
        </details>
      )}
      {Object.keys(c.expectedOnly).length > 0 && <Recorded label="Expected only (not compared)" value={c.expectedOnly} />}
      {Object.keys(c.finalOnly).length > 0 && <Recorded label="Recorded with the final state (not compared)" value={c.finalOnly} />}
    </div>
  );
}

function DiffTable({ rows }: { rows: ReturnType<typeof diffStates> }) {
  return (
    <div className="relative overflow-x-auto">
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
