/**
 * The Reward card of the inspector: how the environment computes the reward (its formula), the recorded components
 * — the formula's terms coloured as rewards, diagnostics (counts, shares and checks recorded beside the reward but
 * not entering it) set apart in grey — and the judge's reasoning with the judge's own call under it.
 */
import type { ReactNode } from "react";
import { formatNumber } from "@/lib/format";
import type { RewardFormula } from "@/lib/reward-formulas";
import { RewardValue } from "./badges";

export function RewardCard(props: {
  reward: number | null;
  components: Record<string, number | null>;
  formula: RewardFormula | null;
  judged: boolean;
  reasoning: string | null;
  judgeCalls: ReactNode;
}) {
  const { reward, formula, judged, reasoning, judgeCalls } = props;
  const entries = Object.entries(props.components);
  // Without a described formula every component is shown as before: as a reward value.
  const isTerm = (k: string) => !formula || formula.terms.includes(k);
  const terms = entries.filter(([k]) => isTerm(k));
  const diagnostics = entries.filter(([k]) => !isTerm(k));
  return (
    <div className="min-w-0 rounded border border-slate-200 bg-white p-3">
      <h2 className="mb-2 text-sm font-semibold text-slate-700">Reward</h2>
      {formula && (
        <div className="mb-2 text-xs text-slate-600" data-testid="reward-formula">
          <p className="font-mono">{formula.formula}</p>
          {formula.notes.map((n) => (
            <p key={n} className="mt-0.5 text-slate-500">
              {n}
            </p>
          ))}
        </div>
      )}
      {entries.length === 0 ? (
        <p className="text-sm text-slate-500">
          {reward === null ? (judged ? "Unscored: the judge gave no usable verdict." : "Unscored.") : "No components recorded."}
        </p>
      ) : (
        <table className="w-full text-sm">
          <tbody>
            {terms.map(([k, v]) => (
              <tr key={k} className="border-b border-slate-100" data-testid="reward-term">
                <td className="py-1 font-mono text-xs">{k}</td>
                <td className="py-1 text-right">
                  <RewardValue value={v} />
                </td>
              </tr>
            ))}
            <tr>
              <td className="py-1 font-semibold">total</td>
              <td className="py-1 text-right font-semibold">
                <RewardValue value={reward} />
              </td>
            </tr>
            {diagnostics.length > 0 && (
              <tr>
                <td
                  colSpan={2}
                  className="pt-3 pb-1 text-xs font-semibold text-slate-500"
                  title="Recorded beside the reward; not part of it"
                >
                  Diagnostics (not in the reward)
                </td>
              </tr>
            )}
            {diagnostics.map(([k, v]) => (
              <tr key={k} className="border-b border-slate-100 text-slate-500" data-testid="reward-diagnostic">
                <td className="py-1 font-mono text-xs">{k}</td>
                <td className="py-1 text-right tabular-nums text-xs">{formatNumber(v)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h3 className="mt-3 mb-1 text-xs font-semibold text-slate-600">{judged ? "Judge reasoning" : "How it was scored"}</h3>
      <p className="whitespace-pre-wrap text-sm text-slate-700" data-testid="judge-reasoning">
        {reasoning || <span className="italic text-slate-500">none recorded</span>}
      </p>
      {judgeCalls}
    </div>
  );
}
