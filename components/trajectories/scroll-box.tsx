"use client";
/**
 * Long JSON (a tool's output) in a box of fixed height that scrolls. Cut at the box's edge mid-object, it read as if
 * the output itself ended there: when the text does not fit, a line under the box says how much more there is, and
 * disappears once the reader has scrolled to the end.
 */
import { useEffect, useRef, useState } from "react";

export function ScrollBox({ text, className }: { text: string; className: string }) {
  const ref = useRef<HTMLPreElement>(null);
  const [hidden, setHidden] = useState(0);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const measure = () => {
      const lineHeight = parseFloat(getComputedStyle(el).lineHeight) || 16;
      const below = el.scrollHeight - el.clientHeight - el.scrollTop;
      setHidden(below > 1 ? Math.max(1, Math.round(below / lineHeight)) : 0);
    };
    measure();
    el.addEventListener("scroll", measure, { passive: true });
    return () => el.removeEventListener("scroll", measure);
  }, [text]);
  return (
    <>
      <pre ref={ref} className={className} tabIndex={0}>
        {text}
      </pre>
      {hidden > 0 && (
        <p className="mt-1 text-xs text-slate-600" data-testid="clip-cue">
          ↓ {hidden.toLocaleString("en-US")} more line{hidden === 1 ? "" : "s"}: scroll inside the box (
          {text.split("\n").length.toLocaleString("en-US")} lines in all)
        </p>
      )}
    </>
  );
}
