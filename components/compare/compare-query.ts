/**
 * `/compare?runs=a,b,c,d&keys=reward/mean,kl&smooth=0.6&group=grpo.learningRate&band=sem`: the selection lives in
 * the URL so a comparison, grouped or not, can be shared.
 */
import { BAND_KINDS, type BandKind } from "@/lib/run-groups";

/** Enough for a few settings × a few seeds; the server's compare procedures accept as many. */
export const MAX_RUNS = 24;
/**
 * The headline families, each as patterns in order of preference. Trainers name them differently (ours "kl" and
 * "loss/ppo_kl", verl "actor/ppo_kl", "actor/entropy", "response_length/mean"), so a family is matched by pattern
 * and drawn with the first key the runs have.
 */
const DEFAULT_FAMILIES: RegExp[][] = [
  [/^reward\/mean$/, /^(critic\/)?(score|rewards?)\/mean$/, /(^|\/)reward$/],
  [/^kl$/, /(^|\/)kl(_mean)?$/, /(^|\/)ppo_kl$/, /(^|\/)kl/],
  [/^entropy$/, /(^|\/)entropy(_mean|\/mean)?$/],
  [/^response\/length_mean$/, /^response_length\/mean$/, /length_mean$/],
];

interface ParamsLike {
  get(name: string): string | null;
}

function list(raw: string | null, max: number): string[] {
  return [
    ...new Set(
      (raw ?? "")
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ].slice(0, max);
}

export interface CompareQuery {
  runs: string[];
  /** null: the headline metrics (chooseKeys). */
  keys: string[] | null;
  smooth: number;
  /** Config paths whose values group the runs; empty: each run is its own curve. */
  group: string[];
  band: BandKind;
}

export function parseCompareQuery(params: ParamsLike): CompareQuery {
  const keys = params.get("keys");
  const smooth = Number(params.get("smooth") ?? "0");
  const band = params.get("band") as BandKind | null;
  return {
    runs: list(params.get("runs"), MAX_RUNS),
    keys: keys === null ? null : list(keys, 20),
    smooth: Number.isFinite(smooth) ? Math.min(0.99, Math.max(0, smooth)) : 0,
    // Generous: "Pool seeds" writes every differing setting, and a dropped one would merge runs it should split.
    group: list(params.get("group"), 200),
    band: band && BAND_KINDS.includes(band) ? band : "std",
  };
}

export function toCompareQuery({ runs, keys, smooth, group, band }: CompareQuery): string {
  const q = new URLSearchParams();
  if (runs.length) q.set("runs", runs.join(","));
  if (keys !== null) q.set("keys", keys.join(","));
  if (smooth > 0) q.set("smooth", smooth.toFixed(2));
  if (group.length) q.set("group", group.join(","));
  if (group.length && band !== "std") q.set("band", band);
  // Commas and slashes are legal in a query string; unescaped they keep the URL readable.
  return q.toString().replace(/%2C/gi, ",").replace(/%2F/gi, "/");
}

/** Keys to draw: the URL's choice, else the usual headline metrics the runs have, else the first few they have. */
export function chooseKeys(requested: string[] | null, available: string[]): string[] {
  if (requested !== null) return requested.filter((k) => available.includes(k));
  const defaults = DEFAULT_FAMILIES.flatMap((family) => {
    for (const pattern of family) {
      const hit = available.find((k) => pattern.test(k));
      if (hit) return [hit];
    }
    return [];
  });
  return defaults.length ? [...new Set(defaults)] : available.slice(0, 4);
}
