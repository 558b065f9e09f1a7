"use client";
/**
 * Grouping runs on the compare page, as W&B's "Group by": tick the config settings whose values split the runs (the
 * settings that differ between them are offered), or pool the seeds in one click; choose the band drawn around each
 * group's mean. Everything lands in the URL (`group`, `band`).
 */
import { ALL_IN_ONE, BAND_KINDS, BAND_LABELS, allButSeed, type BandKind, type DiffRow } from "@/lib/run-groups";

export function GroupControls({
  rows,
  group,
  band,
  onChange,
}: {
  rows: DiffRow[];
  group: string[];
  band: BandKind;
  onChange: (group: string[], band: BandKind) => void;
}) {
  // Nothing but the seed differs: the runs are N seeds of one config, one group ("*").
  const pooled = allButSeed(rows);
  const pool = pooled.length ? pooled : [ALL_IN_ONE];
  const described = group.includes(ALL_IN_ONE) ? "into one (seeds pooled)" : `by ${group.join(", ")}`;
  return (
    <details className="rounded border border-slate-200 bg-white p-2 text-sm" open={group.length > 0} data-testid="group-controls">
      <summary className="cursor-pointer text-slate-600">Group runs {group.length > 0 ? described : "(each run its own curve)"}</summary>
      {rows.length === 0 ? (
        <p className="mt-2 text-slate-500">The selected runs share every setting: there is nothing to group them by.</p>
      ) : (
        <div className="mt-2 space-y-2">
          <div className="flex flex-wrap items-center gap-2">
            <button
              type="button"
              className="rounded border border-slate-300 px-2 py-0.5 hover:bg-slate-50"
              onClick={() => onChange(pool, band)}
              title="Runs that differ only in their seed become one curve: the mean over the seeds, with its spread."
            >
              Pool seeds
            </button>
            {group.length > 0 && (
              <button
                type="button"
                className="rounded border border-slate-300 px-2 py-0.5 hover:bg-slate-50"
                onClick={() => onChange([], band)}
              >
                Ungroup
              </button>
            )}
            <label className="flex items-center gap-1">
              Band
              <select
                className="rounded border border-slate-300 px-1 py-0.5"
                value={band}
                disabled={group.length === 0}
                onChange={(e) => onChange(group, e.target.value as BandKind)}
              >
                {BAND_KINDS.map((k) => (
                  <option key={k} value={k}>
                    {BAND_LABELS[k]}
                  </option>
                ))}
              </select>
            </label>
          </div>
          <fieldset>
            <legend className="text-xs text-slate-500">Group by the settings that differ between the runs</legend>
            <div className="mt-1 flex flex-wrap gap-x-4 gap-y-1">
              {rows.map((row) => (
                <label key={row.path} className="flex items-center gap-1 font-mono text-xs">
                  <input
                    type="checkbox"
                    checked={group.includes(row.path)}
                    onChange={(e) => {
                      const others = group.filter((p) => p !== row.path && p !== ALL_IN_ONE);
                      onChange(e.target.checked ? [...others, row.path] : others, band);
                    }}
                  />
                  {row.path}
                </label>
              ))}
            </div>
          </fieldset>
        </div>
      )}
    </details>
  );
}
