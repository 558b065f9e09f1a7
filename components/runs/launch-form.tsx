"use client";
/**
 * The launch form: every RunConfig field (derived from the shared schema, with help text and defaults), presets
 * per environment family, a config file loaded as the CLI reads it, validation by the same schema the API and trainer
 * use, field-level messages, and the budget the config commits to.
 */
import { useCallback, useMemo, useRef, useState } from "react";
import { PreflightPanel, type PreflightVerdict } from "./preflight-panel";
import { describeConfigFields, getAtPath, humanLabel, placeErrors, setAtPath, validateConfigInput } from "@/lib/config-form";
import { DEFAULT_ENVIRONMENT, ENVIRONMENT_CATALOG, findEnvironment, presetConfig } from "@/lib/environments";
import type { RunConfigInput } from "@/lib/run-config";
import { ConfigField } from "./config-field";
import { ConfigLoader } from "./config-loader";
import { SlurmScriptPreview } from "./slurm-script-preview";
import { describeBudget } from "@/lib/run-budget";
import { PolicySourcePicker } from "@/components/evaluations/policy-source-picker";
import { RUN_NOTES_MAX_CHARS, runNotesSchema } from "@/lib/run-notes";

const SECTION_TITLES: Record<string, string> = {
  "": "Run",
  dataset: "Dataset",
  policy: "Policy model",
  grpo: "GRPO",
  rollout: "Rollout",
  llm: "LLM endpoints (omit for the offline simulator)",
  judge: "Judge",
  checkpoint: "Checkpoints",
  evaluation: "Evaluation",
  eval: "Eval (evaluation runs)",
  execution: "Execution (a worker, or a Slurm job: docs/slurm.md)",
};

/**
 * What most launches change comes first (the run, its policy, GRPO, the rollout); the rest is under "Advanced",
 * folded until opened or until one of its fields is refused. (Every field open was 4,000 px of form.)
 */
const ADVANCED_SECTIONS = new Set(["dataset", "llm", "judge", "checkpoint", "evaluation", "eval", "curriculum", "execution"]);

/** The element a field's error scrolls to: the environment select, or the generated field's input. */
const controlId = (path: string) => (path === "environment" ? "preset" : `cfg-${path.replace(/\./g, "-")}`);

export function LaunchForm({
  initial,
  onLaunch,
  launching,
  serverError,
}: {
  initial: RunConfigInput;
  /** notes: the run's notes, sent beside the config (metadata, never cloned); "" for none. */
  onLaunch: (config: RunConfigInput, notes: string) => void;
  launching: boolean;
  serverError?: string | null;
}) {
  const fields = useMemo(() => describeConfigFields(), []);
  const [value, setValue] = useState<Record<string, unknown>>(initial as Record<string, unknown>);
  // Bumped by each loaded config file: the fields are rebuilt, so JSON boxes show the file's values.
  const [loads, setLoads] = useState(0);
  const [submitted, setSubmitted] = useState(false);
  const [notes, setNotes] = useState("");
  // Checked here as the server checks it, so a refusal sits beside the box rather than in the foot's error.
  const notesCheck = runNotesSchema.safeParse(notes);
  const notesError = notesCheck.success ? null : (notesCheck.error.issues[0]?.message ?? "not accepted");
  // Opened by the reader, or by a refusal of one of its fields (onSubmit); never closed by the form.
  const advancedRef = useRef<HTMLDetailsElement>(null);
  const validation = validateConfigInput(value);
  // Every refusal beside what it refers to: a field (the environment select included), a section, or the foot.
  const placed = placeErrors(
    validation.ok ? {} : validation.errors,
    ["environment", ...fields.map((f) => f.path.join("."))],
    Object.keys(SECTION_TITLES).filter(Boolean),
  );
  const [verdict, setVerdict] = useState<PreflightVerdict>("checking");
  const [launchAnyway, setLaunchAnyway] = useState(false);
  // JSON fields whose text does not parse: their option would be silently dropped, so they hold the launch.
  const [badJson, setBadJson] = useState<Set<string>>(new Set());
  const jsonValidity = useCallback(
    (key: string) => (ok: boolean) =>
      setBadJson((prev) => {
        if (ok === !prev.has(key)) return prev;
        const next = new Set(prev);
        if (ok) next.delete(key);
        else next.add(key);
        return next;
      }),
    [],
  );
  const onVerdict = useCallback((v: PreflightVerdict) => setVerdict(v), []);
  // Only a finished check that found problems holds the launch; "checking" and "no worker" never do.
  const blocked = verdict === "problems" && !launchAnyway;

  const sections = new Map<string, typeof fields>();
  // The environment is chosen by the one control above (its preset), never by a second free-text field that could
  // disagree with it.
  for (const f of fields.filter((f) => f.path.join(".") !== "environment")) {
    // Top-level JSON fields of advanced use (a curriculum, an evaluation's settings) go with the advanced sections.
    const section = f.path.length > 1 && SECTION_TITLES[f.path[0]] ? f.path[0] : ADVANCED_SECTIONS.has(f.path[0]) ? f.path[0] : "";
    sections.set(section, [...(sections.get(section) ?? []), f]);
  }
  const renderSection = ([section, sectionFields]: [string, typeof fields]) => (
    // Keyed by environment too: a preset switch rebuilds the fields, so a JSON box shows the preset's value
    // instead of text typed for the previous environment.
    <fieldset key={`${loads}:${String(value.environment)}:${section || "run"}`} className="rounded border border-slate-200 bg-white p-4">
      <legend className="px-1 text-sm font-semibold text-slate-700">{SECTION_TITLES[section] ?? humanLabel(section)}</legend>
      {section && placed.sections[section] && (
        <p className="mb-3 text-xs text-red-700" role="alert" data-testid={`error-section-${section}`}>
          {section}: {placed.sections[section]}
        </p>
      )}
      <div className="grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-3">
        {sectionFields.map((f) => (
          <ConfigField
            key={f.path.join(".")}
            field={f}
            value={getAtPath(value, f.path)}
            error={submitted || getAtPath(value, f.path) !== undefined ? placed.fields[f.path.join(".")] : undefined}
            onChange={(v) => setValue((prev) => setAtPath(prev, f.path, v))}
            onJsonValidity={jsonValidity(f.path.join("."))}
          />
        ))}
      </div>
    </fieldset>
  );
  const mainSections = [...sections.entries()].filter(([section]) => !ADVANCED_SECTIONS.has(section));
  const advancedSections = [...sections.entries()].filter(([section]) => ADVANCED_SECTIONS.has(section));

  const applyPreset = (name: string) => {
    if (findEnvironment(name)) setValue({ ...(presetConfig(name) as Record<string, unknown>), name: value.name, tags: value.tags });
  };

  return (
    <form
      className="space-y-6"
      // The form checks every field itself and says why beside it; the browser's own check stopped the submit
      // without a word when the refused field was folded under "Advanced".
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        setSubmitted(true);
        // A refused field under "Advanced" opens it first, then is scrolled to once it is laid out.
        const show = (path: string, id: string) => {
          if (ADVANCED_SECTIONS.has(path.split(".")[0]) && advancedRef.current) advancedRef.current.open = true;
          requestAnimationFrame(() => document.getElementById(id)?.scrollIntoView({ block: "center" }));
        };
        if (badJson.size > 0) {
          const path = [...badJson][0];
          show(path, `cfg-${path.replace(/\./g, "-")}`);
          return;
        }
        if (!validation.ok) {
          // Show the first problem: the field's error sits beside it.
          const first = Object.keys(placed.fields)[0];
          if (first) show(first, controlId(first));
          return;
        }
        if (notesError) {
          document.getElementById("launch-notes")?.focus();
          return;
        }
        if (!blocked) onLaunch(value as RunConfigInput, notes);
      }}
    >
      <ConfigLoader
        onLoad={(config) => {
          setValue(config);
          setLoads((n) => n + 1);
          setBadJson(new Set());
        }}
      />
      <div className="flex flex-wrap items-end gap-3 rounded border border-slate-200 bg-white p-3">
        {/* The label stands beside the select, not around it: wrapped, its text would include every option's. */}
        <div className="flex flex-col gap-1 text-xs text-slate-700">
          <label htmlFor="preset">Environment</label>
          <select
            id="preset"
            aria-invalid={Boolean(placed.fields.environment)}
            aria-describedby={placed.fields.environment ? "error-environment" : undefined}
            className={`rounded border px-2 py-1 text-sm ${placed.fields.environment ? "border-red-400" : "border-slate-300"}`}
            value={String(value.environment ?? DEFAULT_ENVIRONMENT)}
            onChange={(e) => applyPreset(e.target.value)}
          >
            {ENVIRONMENT_CATALOG.map((env) => (
              <option key={env.name} value={env.name}>
                {env.name} — {env.seedSystem}
              </option>
            ))}
            {/* A cloned run's environment that the catalog no longer lists stays selectable as it was. */}
            {!ENVIRONMENT_CATALOG.some((e) => e.name === value.environment) && typeof value.environment === "string" && (
              <option value={value.environment}>{value.environment}</option>
            )}
          </select>
          {placed.fields.environment && (
            <p id="error-environment" className="max-w-md text-xs text-red-700" role="alert" data-testid="error-environment">
              {placed.fields.environment}
            </p>
          )}
        </div>
        <span className="text-[11px] text-slate-500">choosing one loads its learning preset</span>
        <p className="max-w-xl text-xs text-slate-500">{ENVIRONMENT_CATALOG.find((e) => e.name === value.environment)?.description}</p>
      </div>
      <PolicySourcePicker
        value={value}
        onChange={(next) => {
          setValue(next);
          setLoads((n) => n + 1);
        }}
      />
      {mainSections.map(renderSection)}
      <details className="rounded border border-slate-200 bg-white p-4" data-testid="advanced-settings" ref={advancedRef}>
        <summary className="cursor-pointer text-sm font-semibold text-slate-700">
          Advanced: {advancedSections.map(([section]) => SECTION_TITLES[section]?.split(" (")[0] ?? humanLabel(section)).join(", ")}
        </summary>
        <div className="mt-4 space-y-6">{advancedSections.map(renderSection)}</div>
      </details>
      {placed.rest.length > 0 && (
        <ul className="list-disc pl-5 text-sm text-red-700" role="alert" data-testid="config-errors">
          {placed.rest.map((m) => (
            <li key={m}>{m}</li>
          ))}
        </ul>
      )}
      {serverError && (
        <p className="rounded border border-red-200 bg-red-50 p-3 text-sm text-red-800" role="alert">
          {serverError}
        </p>
      )}
      <div className="rounded border border-slate-200 bg-white p-3 text-sm">
        <label htmlFor="launch-notes" className="font-semibold text-slate-700">
          Notes <span className="font-normal text-slate-500">(optional: why this run, what to look for; editable later, not cloned)</span>
        </label>
        <textarea
          id="launch-notes"
          className={`mt-1 block w-full rounded border px-2 py-1 ${notesError ? "border-red-400" : "border-slate-300"}`}
          rows={2}
          maxLength={RUN_NOTES_MAX_CHARS}
          value={notes}
          aria-invalid={Boolean(notesError)}
          aria-describedby={notesError ? "error-notes" : undefined}
          onChange={(e) => setNotes(e.target.value)}
        />
        {notesError && (
          <p id="error-notes" className="mt-1 text-xs text-red-700" role="alert">
            Notes: {notesError}
          </p>
        )}
      </div>
      {validation.ok && (
        <p className="rounded border border-slate-200 bg-white p-3 text-sm text-slate-700" data-testid="budget">
          <span className="font-semibold">Budget: </span>
          {describeBudget(validation.config)}
        </p>
      )}
      {validation.ok && <SlurmScriptPreview config={validation.config} />}
      <PreflightPanel config={validation.ok ? (validation.config as Record<string, unknown>) : null} onVerdict={onVerdict} />
      <div className="flex items-center gap-3">
        {verdict === "problems" && (
          <label className="flex items-center gap-2 text-sm text-red-800">
            <input type="checkbox" checked={launchAnyway} onChange={(e) => setLaunchAnyway(e.target.checked)} />
            Launch anyway
          </label>
        )}
        <button
          type="submit"
          disabled={launching || blocked}
          className="rounded bg-blue-700 px-4 py-2 text-sm font-medium text-white hover:bg-blue-800 disabled:opacity-50"
        >
          {launching ? "Launching…" : value.eval ? "Launch evaluation" : "Launch run"}
        </button>
        {submitted && (!validation.ok || badJson.size > 0) && (
          <span className="text-sm text-red-700" role="alert">
            Fix the highlighted fields:{" "}
            {[...badJson, ...Object.keys(placed.fields), ...Object.keys(placed.sections)].join(", ") || "see above"}.
          </span>
        )}
      </div>
    </form>
  );
}
