/**
 * The launch form's view of the batch script a Slurm launcher will submit for this config (lib/slurm-script.ts, the
 * same function the launcher calls). Paths come from the launcher's ROLLOUT_LAB_SLURM settings and the run id from
 * the database, so those appear as placeholders here; everything from the config is exactly as it will be.
 */
import type { RunConfig } from "@/lib/run-config";
import { renderSlurmJobScript } from "@/lib/slurm-script";

const PLACEHOLDER_SITE = { workDir: "<workDir>", nodeBin: "<nodeBin>", dataDir: "<dataDir>", logDir: "<dataDir>/slurm-logs" };

export function SlurmScriptPreview({ config }: { config: RunConfig }) {
  if (config.execution.launcher !== "slurm") return null;
  const script = renderSlurmJobScript({
    runId: "<run id>",
    jobName: "rollout-lab-<run id>-1",
    execution: config.execution,
    site: PLACEHOLDER_SITE,
  });
  return (
    <details open className="rounded border border-slate-200 bg-white p-3 text-sm text-slate-700" data-testid="slurm-script">
      <summary className="cursor-pointer font-semibold">Slurm job script</summary>
      <p className="mt-1 text-xs text-slate-500">
        What the Slurm launcher submits with sbatch; paths in &lt;…&gt; come from its ROLLOUT_LAB_SLURM settings (docs/slurm.md).
      </p>
      <pre className="mt-2 overflow-x-auto whitespace-pre rounded bg-slate-50 p-2 font-mono text-xs">{script}</pre>
    </details>
  );
}
