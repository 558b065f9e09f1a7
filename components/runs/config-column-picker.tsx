"use client";
/**
 * "+ Config column": any scalar setting of the listed runs' configs becomes a column. Settings that differ between
 * the runs are listed first: they are the ones that explain a difference in results.
 */
import { useMemo } from "react";
import { columnChoices, type ConfigLeaves } from "@/lib/config-columns";

export function ConfigColumnPicker({ configs, shown, onAdd }: { configs: ConfigLeaves[]; shown: string[]; onAdd: (path: string) => void }) {
  const choices = useMemo(() => columnChoices(configs), [configs]);
  const offer = (paths: string[]) => paths.filter((p) => !shown.includes(p));
  return (
    <select
      aria-label="Add config column"
      className="rounded border border-slate-300 px-2 py-1 text-sm"
      value=""
      onChange={(e) => e.target.value && onAdd(e.target.value)}
    >
      <option value="">+ Config column</option>
      <optgroup label="Differs between these runs">
        {offer(choices.varying).map((p) => (
          <option key={p}>{p}</option>
        ))}
      </optgroup>
      <optgroup label="Same in every run">
        {offer(choices.constant).map((p) => (
          <option key={p}>{p}</option>
        ))}
      </optgroup>
    </select>
  );
}
