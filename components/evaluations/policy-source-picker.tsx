"use client";
/**
 * The launch form's "Policy" choice: train the policy model (GRPO), or evaluate — an API model through its
 * OpenAI-compatible endpoint, or the built-in gold replay — every task k times without training. Edits the same
 * config the rest of the form edits (policy.endpoint / policy.scripted and the eval section).
 */
import { getAtPath, setAtPath } from "@/lib/config-form";

type Source = "train" | "endpoint" | "gold";

function sourceOf(value: Record<string, unknown>): Source {
  if (getAtPath(value, ["policy", "endpoint"])) return "endpoint";
  if (getAtPath(value, ["policy", "scripted"])) return "gold";
  return "train";
}

export function PolicySourcePicker({
  value,
  onChange,
}: {
  value: Record<string, unknown>;
  onChange: (next: Record<string, unknown>) => void;
}) {
  const source = sourceOf(value);
  const choose = (next: Source) => {
    let v = setAtPath(setAtPath(value, ["policy", "endpoint"], undefined), ["policy", "scripted"], undefined);
    if (next === "train") v = setAtPath(v, ["eval"], undefined);
    else {
      const evalSection = (getAtPath(value, ["eval"]) as Record<string, unknown> | undefined) ?? { k: next === "gold" ? 2 : 4 };
      v = setAtPath(v, ["eval"], evalSection);
      // Environments cap their own episodes (τ²: 20 turns); an evaluation must not cut them shorter.
      v = setAtPath(v, ["rollout", "maxTurns"], Math.max(Number(getAtPath(value, ["rollout", "maxTurns"]) ?? 10), 30));
      v =
        next === "endpoint"
          ? setAtPath(v, ["policy", "endpoint"], { baseUrl: "https://api.openai.com/v1", model: "", apiKeyEnv: "OPENAI_API_KEY" })
          : setAtPath(v, ["policy", "scripted"], "gold");
    }
    onChange(v);
  };
  const field = (path: string[], label: string, type: "text" | "number", placeholder?: string) => (
    <label className="flex flex-col gap-1 text-xs text-slate-700">
      <span className="font-mono">{label}</span>
      <input
        id={`policy-source-${path.join("-")}`}
        type={type}
        className="rounded border border-slate-300 px-2 py-1 text-sm"
        placeholder={placeholder}
        value={String(getAtPath(value, path) ?? "")}
        onChange={(e) => {
          const raw = e.target.value;
          onChange(setAtPath(value, path, raw === "" ? undefined : type === "number" ? Number(raw) : raw));
        }}
      />
    </label>
  );
  return (
    <fieldset className="rounded border border-slate-200 bg-white p-3" data-testid="policy-source">
      <legend className="px-1 text-sm font-semibold text-slate-700">Policy</legend>
      <div className="flex flex-wrap gap-4 text-sm">
        {(
          [
            ["train", "Train the policy model (GRPO)"],
            ["endpoint", "Policy: endpoint — evaluate an OpenAI-compatible model"],
            ["gold", "Gold actions replayed (scripted, not a model)"],
          ] as const
        ).map(([id, label]) => (
          <label key={id} className="flex items-center gap-2">
            <input type="radio" name="policy-source" value={id} checked={source === id} onChange={() => choose(id)} />
            {label}
          </label>
        ))}
      </div>
      {source !== "train" && (
        <p className="mt-2 text-xs text-slate-500">
          An evaluation plays every selected task k times and trains nothing; it reports pass@1, pass^k and the mean reward per task
          (docs/evaluation.md). Task selection (tasks, maxTasks) and concurrency are in the eval field below.
        </p>
      )}
      {source === "endpoint" && (
        <div className="mt-3 grid grid-cols-1 gap-3 sm:grid-cols-3">
          {field(["policy", "endpoint", "baseUrl"], "base URL", "text", "https://api.openai.com/v1")}
          {field(["policy", "endpoint", "model"], "model", "text", "gpt-4.1-mini")}
          {field(["policy", "endpoint", "apiKeyEnv"], "API key variable (on the worker host)", "text", "OPENAI_API_KEY")}
          {field(["eval", "k"], "k (trials per task)", "number", "4")}
          {field(["eval", "maxCostUsd"], "cost ceiling, USD", "number", "none")}
          {field(["policy", "endpoint", "price", "inputPerMTok"], "price in, USD / 1M tokens", "number", "0")}
          {field(["policy", "endpoint", "price", "outputPerMTok"], "price out, USD / 1M tokens", "number", "0")}
        </div>
      )}
      {source === "gold" && (
        <div className="mt-3 grid grid-cols-1 gap-3 sm:grid-cols-3">{field(["eval", "k"], "k (trials per task)", "number", "2")}</div>
      )}
    </fieldset>
  );
}
