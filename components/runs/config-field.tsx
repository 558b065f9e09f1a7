"use client";
import { useState } from "react";
import type { FieldDescriptor } from "@/lib/config-form";

/** One run-config field: an input matching its kind, its default as placeholder, help text and error. */
/** `onJsonValidity`: JSON fields report whether their text parses, so the form can refuse to launch without it. */
export function ConfigField({
  field,
  value,
  error,
  onChange,
  onJsonValidity,
}: {
  field: FieldDescriptor;
  value: unknown;
  error?: string;
  onChange: (v: unknown) => void;
  onJsonValidity?: (ok: boolean) => void;
}) {
  const id = `cfg-${field.path.join("-")}`;
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="text-xs font-medium text-slate-700" title={field.path.join(".")} data-key={field.path.join(".")}>
        {field.label}
      </label>
      <FieldInput id={id} field={field} value={value} onChange={onChange} invalid={Boolean(error)} onJsonValidity={onJsonValidity} />
      {field.description && <p className="text-xs text-slate-500">{field.description}</p>}
      {error && (
        <p className="text-xs text-red-700" role="alert" data-testid={`error-${field.path.join(".")}`}>
          {error}
        </p>
      )}
    </div>
  );
}

function FieldInput({
  id,
  field,
  value,
  onChange,
  invalid,
  onJsonValidity,
}: {
  id: string;
  field: FieldDescriptor;
  value: unknown;
  onChange: (v: unknown) => void;
  invalid: boolean;
  onJsonValidity?: (ok: boolean) => void;
}) {
  const cls = `rounded border px-2 py-1 text-sm ${invalid ? "border-red-400" : "border-slate-300"}`;
  const placeholder = field.defaultValue === undefined ? "" : `default: ${JSON.stringify(field.defaultValue)}`;
  switch (field.kind) {
    case "boolean":
      return (
        <input
          id={id}
          type="checkbox"
          className="h-4 w-4"
          checked={Boolean(value ?? field.defaultValue)}
          onChange={(e) => onChange(e.target.checked)}
        />
      );
    case "enum":
      return (
        <select id={id} className={cls} value={String(value ?? field.defaultValue ?? "")} onChange={(e) => onChange(e.target.value)}>
          {field.options?.map((o) => (
            <option key={o}>{o}</option>
          ))}
        </select>
      );
    case "number":
    case "integer":
      return (
        <input
          id={id}
          type="number"
          className={cls}
          step={field.kind === "integer" ? 1 : "any"}
          min={field.min}
          max={field.max}
          placeholder={placeholder}
          value={value === undefined ? "" : String(value)}
          onChange={(e) => onChange(e.target.value === "" ? undefined : Number(e.target.value))}
        />
      );
    case "tags":
      return (
        <input
          id={id}
          className={cls}
          placeholder="comma-separated"
          value={Array.isArray(value) ? value.join(", ") : ""}
          onChange={(e) =>
            onChange(
              e.target.value.trim() === ""
                ? undefined
                : e.target.value
                    .split(",")
                    .map((t) => t.trim())
                    .filter(Boolean),
            )
          }
        />
      );
    case "json":
      return <JsonInput id={id} className={cls} value={value} placeholder={placeholder} onChange={onChange} onValidity={onJsonValidity} />;
    default:
      return (
        <input
          id={id}
          className={cls}
          placeholder={placeholder}
          value={value === undefined ? "" : String(value)}
          onChange={(e) => onChange(e.target.value === "" ? undefined : e.target.value)}
        />
      );
  }
}

/**
 * JSON-valued fields keep the user's text while it does not parse yet, instead of resetting it, and say so to the
 * form: a launch with text that does not parse would silently drop the option.
 */
function JsonInput({
  id,
  className,
  value,
  placeholder,
  onChange,
  onValidity,
}: {
  id: string;
  className: string;
  value: unknown;
  placeholder: string;
  onChange: (v: unknown) => void;
  onValidity?: (ok: boolean) => void;
}) {
  const [text, setText] = useState(value === undefined ? "" : JSON.stringify(value, null, 2));
  const [parseError, setParseError] = useState<string | null>(null);
  return (
    <>
      <textarea
        id={id}
        rows={3}
        className={`${className} font-mono text-xs`}
        placeholder={placeholder}
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          if (e.target.value.trim() === "") {
            setParseError(null);
            onValidity?.(true);
            return onChange(undefined);
          }
          try {
            onChange(JSON.parse(e.target.value));
            setParseError(null);
            onValidity?.(true);
          } catch {
            setParseError("Not valid JSON: fix it or clear the field to launch.");
            onValidity?.(false);
          }
        }}
      />
      {parseError && (
        <p className="text-xs text-red-700" role="alert" data-testid={`json-error-${id}`}>
          {parseError}
        </p>
      )}
    </>
  );
}
