"use client";
/**
 * Keyboard shortcuts everywhere: `?` shows what there is, `/` jumps to the page's search box (any input marked
 * data-search), Esc closes the help. Keys typed into a field are left alone.
 */
import { useEffect, useState } from "react";

const SHORTCUTS: [string, string][] = [
  ["?", "show or hide this help"],
  ["/", "search (the trajectory browser's text filter, the runs list's search)"],
  ["j / k", "next / previous trajectory in the inspector, in the browser's order"],
  ["Esc", "close this help"],
];

function typing(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return !!el && (el.tagName === "INPUT" || el.tagName === "TEXTAREA" || el.tagName === "SELECT" || el.isContentEditable);
}

export function KeyboardHelp() {
  const [open, setOpen] = useState(false);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") return setOpen(false);
      if (typing(e.target) || e.metaKey || e.ctrlKey || e.altKey) return;
      if (e.key === "?") {
        e.preventDefault();
        setOpen((o) => !o);
      } else if (e.key === "/") {
        const search = document.querySelector<HTMLInputElement>("[data-search]");
        if (search) {
          e.preventDefault();
          search.focus();
        }
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
  if (!open) return null;
  return (
    <div
      role="dialog"
      aria-label="Keyboard shortcuts"
      className="fixed inset-0 z-50 flex items-center justify-center bg-black/30"
      onClick={() => setOpen(false)}
    >
      <div className="rounded border border-slate-200 bg-white p-4 text-sm shadow-lg" onClick={(e) => e.stopPropagation()}>
        <h2 className="mb-2 font-semibold">Keyboard shortcuts</h2>
        <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1">
          {SHORTCUTS.map(([key, what]) => (
            <div key={key} className="contents">
              <dt>
                <kbd className="rounded border border-slate-300 bg-slate-50 px-1 font-mono text-xs">{key}</kbd>
              </dt>
              <dd className="text-slate-600">{what}</dd>
            </div>
          ))}
        </dl>
      </div>
    </div>
  );
}
