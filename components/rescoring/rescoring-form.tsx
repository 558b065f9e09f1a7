"use client";
/**
 * Start a re-scoring job: which steps (or one group), and which scorer — the judge prompt (prefilled with the
 * default template), a real judge endpoint or the offline judge's strictness, k judgements — or re-weighted
 * components. The job runs on a trainer worker; the page it opens shows its progress and results.
 */
import { useState, type FormEvent } from "react";
import { useRouter } from "next/navigation";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "@/components/providers/trpc-provider";
import { DEFAULT_RESCORE_JUDGE_PROMPT, type ScorerInput } from "@/lib/rescoring-config";

const input = "mt-1 rounded border border-slate-300 px-2 py-1";

function optionalInt(v: string): number | undefined {
  return v.trim() === "" ? undefined : Number(v);
}

export function RescoringForm({ runId, defaultStep, defaultGroupId }: { runId: string; defaultStep?: number; defaultGroupId?: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [stepMin, setStepMin] = useState(defaultStep === undefined ? "" : String(defaultStep));
  const [stepMax, setStepMax] = useState(defaultStep === undefined ? "" : String(defaultStep));
  const [groupId, setGroupId] = useState(defaultGroupId ?? "");
  const [kind, setKind] = useState<"judge" | "weights">("judge");
  const [prompt, setPrompt] = useState(DEFAULT_RESCORE_JUDGE_PROMPT);
  const [threshold, setThreshold] = useState("1");
  const [noise, setNoise] = useState("0");
  const [samples, setSamples] = useState("1");
  const [model, setModel] = useState("");
  const [baseUrl, setBaseUrl] = useState("");
  const [apiKeyEnv, setApiKeyEnv] = useState("");
  const [weights, setWeights] = useState('{"goal": 1}');
  const [weightsError, setWeightsError] = useState<string | null>(null);
  const create = useMutation(
    trpc.rescoring.create.mutationOptions({
      onSuccess: async (job) => {
        await queryClient.invalidateQueries({ queryKey: trpc.rescoring.list.queryKey() });
        router.push(`/runs/${runId}/rescoring/${job.id}`);
      },
    }),
  );

  function submit(e: FormEvent) {
    e.preventDefault();
    let scorer: ScorerInput;
    if (kind === "weights") {
      try {
        scorer = { kind: "weights", weights: JSON.parse(weights) as Record<string, number> };
        setWeightsError(null);
      } catch {
        setWeightsError('Weights must be a JSON object such as {"goal": 1, "verified_reservation": 0.5}.');
        return;
      }
    } else {
      scorer = {
        kind: "judge",
        prompt,
        samples: Number(samples),
        offline: { threshold: Number(threshold), noise: Number(noise) },
        ...(model.trim() && baseUrl.trim()
          ? { endpoint: { model: model.trim(), baseUrl: baseUrl.trim(), ...(apiKeyEnv.trim() ? { apiKeyEnv: apiKeyEnv.trim() } : {}) } }
          : {}),
      };
    }
    create.mutate({
      runId,
      selection: { stepMin: optionalInt(stepMin), stepMax: optionalInt(stepMax), ...(groupId.trim() ? { groupId: groupId.trim() } : {}) },
      scorer,
    });
  }

  const fieldError = create.error?.data?.zodIssues?.map((i) => `${i.path}: ${i.message}`).join("; ");
  return (
    <form onSubmit={submit} className="space-y-4 rounded border border-slate-200 bg-white p-4 text-sm" data-testid="rescoring-form">
      <h2 className="font-semibold">Re-judge stored trajectories</h2>
      <div className="flex flex-wrap gap-3">
        <label className="flex flex-col">
          First step
          <input
            aria-label="First step"
            type="number"
            min={0}
            value={stepMin}
            onChange={(e) => setStepMin(e.target.value)}
            className={`${input} w-24`}
          />
        </label>
        <label className="flex flex-col">
          Last step
          <input
            aria-label="Last step"
            type="number"
            min={0}
            value={stepMax}
            onChange={(e) => setStepMax(e.target.value)}
            className={`${input} w-24`}
          />
        </label>
        <label className="flex flex-col">
          Group id (optional)
          <input value={groupId} onChange={(e) => setGroupId(e.target.value)} className={`${input} w-64`} />
        </label>
        <label className="flex flex-col">
          Scorer
          <select
            aria-label="Scorer"
            value={kind}
            onChange={(e) => setKind(e.target.value === "weights" ? "weights" : "judge")}
            className={input}
          >
            <option value="judge">judge (LLM or offline)</option>
            <option value="weights">re-weighted components</option>
          </select>
        </label>
      </div>
      {kind === "judge" ? (
        <>
          <label className="flex flex-col">
            Judge prompt (placeholders:{" "}
            {"{{instruction}} {{policy}} {{expected}} {{final_state}} {{history}} {{task}} {{system_prompt}} {{transcript}}"})
            <textarea
              aria-label="Judge prompt"
              value={prompt}
              onChange={(e) => setPrompt(e.target.value)}
              rows={8}
              className={`${input} font-mono text-xs`}
            />
          </label>
          <div className="flex flex-wrap gap-3">
            <label className="flex flex-col">
              Judgements per trajectory (k)
              <input
                aria-label="Judgements per trajectory"
                type="number"
                min={1}
                max={9}
                value={samples}
                onChange={(e) => setSamples(e.target.value)}
                className={`${input} w-24`}
              />
            </label>
            <label className="flex flex-col">
              Offline strictness (share needed, 1 = strict)
              <input
                aria-label="Offline strictness"
                type="number"
                min={0}
                max={1}
                step={0.05}
                value={threshold}
                onChange={(e) => setThreshold(e.target.value)}
                className={`${input} w-24`}
              />
            </label>
            <label className="flex flex-col">
              Offline noise (0–0.5)
              <input
                aria-label="Offline noise"
                type="number"
                min={0}
                max={0.5}
                step={0.05}
                value={noise}
                onChange={(e) => setNoise(e.target.value)}
                className={`${input} w-24`}
              />
            </label>
          </div>
          <fieldset className="flex flex-wrap gap-3">
            <legend className="text-xs text-slate-500">
              Real judge (leave empty for the offline judge). The key stays in the worker&apos;s environment.
            </legend>
            <label className="flex flex-col">
              Model
              <input value={model} onChange={(e) => setModel(e.target.value)} placeholder="gpt-4.1-mini" className={input} />
            </label>
            <label className="flex flex-col">
              Base URL
              <input
                value={baseUrl}
                onChange={(e) => setBaseUrl(e.target.value)}
                placeholder="https://api.openai.com/v1"
                className={`${input} w-72`}
              />
            </label>
            <label className="flex flex-col">
              API key variable
              <input value={apiKeyEnv} onChange={(e) => setApiKeyEnv(e.target.value)} placeholder="OPENAI_API_KEY" className={input} />
            </label>
          </fieldset>
        </>
      ) : (
        <label className="flex flex-col">
          Component weights (reward = Σ weight × component)
          <input
            aria-label="Component weights"
            value={weights}
            onChange={(e) => setWeights(e.target.value)}
            className={`${input} font-mono`}
          />
        </label>
      )}
      <button type="submit" disabled={create.isPending} className="rounded bg-slate-900 px-3 py-1.5 text-white disabled:opacity-50">
        Start re-judging
      </button>
      {(weightsError || create.isError) && (
        <p role="alert" className="text-red-700">
          {weightsError ?? fieldError ?? create.error?.message}
        </p>
      )}
    </form>
  );
}
