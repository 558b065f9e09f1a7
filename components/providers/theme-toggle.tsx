"use client";
/** The nav's theme button: system → light → dark. Applies the "dark" class and follows the system live when unset. */
import { useEffect, useSyncExternalStore } from "react";
import { THEME_STORAGE_KEY, isDark, nextTheme, parseTheme, type Theme } from "@/lib/theme";

const LABELS: Record<Theme, string> = { system: "Theme: system", light: "Theme: light", dark: "Theme: dark" };
const CHANGED = "rollout-lab-theme-changed";

/** localStorage as a store: other tabs report through "storage", this one through its own event. */
function subscribe(onChange: () => void): () => void {
  window.addEventListener("storage", onChange);
  window.addEventListener(CHANGED, onChange);
  return () => {
    window.removeEventListener("storage", onChange);
    window.removeEventListener(CHANGED, onChange);
  };
}

export function ThemeToggle() {
  // The server cannot know the choice: it renders "system", the client corrects it after hydration.
  const theme = parseTheme(
    useSyncExternalStore(
      subscribe,
      () => localStorage.getItem(THEME_STORAGE_KEY),
      () => null,
    ),
  );
  useEffect(() => {
    const media = matchMedia("(prefers-color-scheme: dark)");
    const apply = () => document.documentElement.classList.toggle("dark", isDark(theme, media.matches));
    apply();
    media.addEventListener("change", apply);
    return () => media.removeEventListener("change", apply);
  }, [theme]);
  const choose = () => {
    const next = nextTheme(theme);
    if (next === "system") localStorage.removeItem(THEME_STORAGE_KEY);
    else localStorage.setItem(THEME_STORAGE_KEY, next);
    window.dispatchEvent(new Event(CHANGED));
  };
  return (
    <button
      type="button"
      onClick={choose}
      className="ml-auto rounded border border-slate-300 px-2 py-0.5 text-xs text-slate-600 hover:text-slate-900"
    >
      {LABELS[theme]}
    </button>
  );
}
