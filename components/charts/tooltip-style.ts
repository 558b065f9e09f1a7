/**
 * The box every chart's tooltip is drawn in. recharts paints it white with inherited text, so in dark mode (where
 * the text turns near-white, app/globals.css) the step or time it names was white on white. The palette's own
 * variables follow the theme: a card background, its border and body text.
 */
import type { CSSProperties } from "react";

export const tooltipContentStyle: CSSProperties = {
  fontSize: 11,
  padding: "4px 8px",
  backgroundColor: "var(--color-white)",
  borderColor: "var(--color-slate-300)",
  color: "var(--color-slate-900)",
};

export const tooltipLabelStyle: CSSProperties = { color: "var(--color-slate-900)", fontWeight: 600 };

/**
 * Each value's line. recharts colours it with its series' stroke, and the light ones (a min–max band, a raw series
 * in blue-200/300) failed axe's contrast check on the white box; the series' name says which line it is.
 */
export const tooltipItemStyle: CSSProperties = { color: "var(--color-slate-900)" };
