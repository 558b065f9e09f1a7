"use client";
/**
 * The groups as a table: which runs each holds and, per drawn metric, the figure a paper reports — each run's last
 * value, averaged over the group, with the chosen spread ("0.62 ± 0.04 (3 runs)").
 */
import { BAND_LABELS, finalValues, type BandKind, type RunGroup } from "@/lib/run-groups";
import { formatStep, formatValue } from "@/lib/chart-axis";
import { SeriesDot, type SeriesStyle } from "./overlay-chart";

type Points = { step: number; value: number }[];

export function GroupSummary({
  groups,
  keys,
  band,
  style,
  runName,
  pointsOf,
}: {
  groups: RunGroup[];
  keys: string[];
  band: BandKind;
  style: (groupIndex: number) => SeriesStyle;
  runName: (id: string) => string;
  /** Raw points: a smoothed last value lags behind the run's. */
  pointsOf: (runId: string, key: string) => Points;
}) {
  return (
    <section>
      <h2 className="mb-2 text-sm font-semibold text-slate-700">
        Groups <span className="font-normal text-slate-500">(last value of each run: mean, {BAND_LABELS[band]})</span>
      </h2>
      <div className="overflow-x-auto rounded border border-slate-200 bg-white">
        <table className="w-full text-left text-xs" data-testid="group-summary">
          <thead className="bg-slate-50 text-slate-500">
            <tr>
              <th className="px-2 py-1">group</th>
              <th className="px-2 py-1">runs</th>
              {keys.map((k) => (
                <th key={k} className="px-2 py-1 font-mono">
                  {k}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {groups.map((g, i) => (
              <tr key={i} className="border-t border-slate-100" data-testid="group-row">
                <td className="px-2 py-1">
                  <span className="flex items-center gap-1">
                    <SeriesDot {...style(i)} />
                    <span className="font-mono">{g.label}</span>
                  </span>
                </td>
                <td className="px-2 py-1">
                  {g.runIds.length}: <span className="text-slate-600">{g.runIds.map(runName).join(", ")}</span>
                </td>
                {keys.map((k) => (
                  <td key={k} className="px-2 py-1 tabular-nums">
                    <FinalCell
                      figure={finalValues(
                        g.runIds.map((id) => pointsOf(id, k)),
                        band,
                      )}
                      band={band}
                    />
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function FinalCell({ figure, band }: { figure: ReturnType<typeof finalValues>; band: BandKind }) {
  if (!figure) return <span className="text-slate-400">not recorded</span>;
  const { mean, band: b, n, steps } = figure;
  const spread = !b ? "" : band === "minmax" ? ` [${formatValue(b[0])} – ${formatValue(b[1])}]` : ` ± ${formatValue(b[1] - mean)}`;
  // Runs that stopped at different steps are averaged all the same: say so.
  const where = steps[0] === steps[1] ? "" : `, last at steps ${formatStep(steps[0])}–${formatStep(steps[1])}`;
  return (
    <>
      {formatValue(mean)}
      {spread}{" "}
      <span className="text-slate-500">
        ({n === 1 ? "1 run" : `${n} runs`}
        {where})
      </span>
    </>
  );
}
