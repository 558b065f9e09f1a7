"use client";
/**
 * "Load a config": the same YAML or JSON file `rollout-lab runs create --config` takes, uploaded or pasted, replaces
 * the form's values (which the form then validates field by field as if typed).
 */
import { useState } from "react";
import { parseConfigText } from "@/lib/config-text";

export function ConfigLoader({ onLoad }: { onLoad: (config: Record<string, unknown>) => void }) {
  const [text, setText] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [loaded, setLoaded] = useState<string | null>(null);

  const use = (source: string, name: string) => {
    const parsed = parseConfigText(source, name);
    if (!parsed.ok) {
      setError(parsed.error);
      setLoaded(null);
      return;
    }
    setError(null);
    setLoaded(name);
    onLoad(parsed.config);
  };

  return (
    <details className="rounded border border-slate-200 bg-white p-3 text-sm">
      <summary className="cursor-pointer text-slate-700">Load a config file (YAML or JSON, as the CLI takes)</summary>
      <div className="mt-3 flex flex-col gap-2">
        <label className="flex flex-col gap-1 text-xs text-slate-700">
          Upload
          <input
            type="file"
            accept=".yaml,.yml,.json,application/json,text/yaml"
            onChange={async (e) => {
              const file = e.target.files?.[0];
              if (file) use(await file.text(), file.name);
            }}
          />
        </label>
        <label className="flex flex-col gap-1 text-xs text-slate-700">
          or paste it
          <textarea
            className="h-32 rounded border border-slate-300 p-2 font-mono text-xs"
            value={text}
            onChange={(e) => setText(e.target.value)}
            placeholder={"environment: guess-number\ngrpo:\n  steps: 30"}
          />
        </label>
        <div>
          <button
            type="button"
            className="rounded border border-slate-300 px-3 py-1 text-sm hover:bg-slate-50 disabled:opacity-50"
            disabled={text.trim() === ""}
            onClick={() => use(text, "pasted config")}
          >
            Use this config
          </button>
        </div>
        {error && (
          <p className="text-xs text-red-700" role="alert">
            {error}
          </p>
        )}
        {loaded && <p className="text-xs text-green-800">Loaded {loaded}: the form below now holds it.</p>}
      </div>
    </details>
  );
}
