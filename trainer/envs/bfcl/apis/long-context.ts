/**
 * What gorilla's API classes add in BFCL's long_context category: many more files, stocks, transactions, cards,
 * bookings and pages of metadata, so the answer has to be found in a long tool result. The values are gorilla's own
 * (long-context.json, written from its long_context.py by scripts/parity/bfcl_long_context_data.py; Apache License 2.0,
 * tests/fixtures/bfcl-gorilla/LICENSE).
 */
import { readFileSync } from "node:fs";
import { PyOpaque } from "../../../../lib/python-json";

/** How the runtime builds every API instance of one entry. */
export interface ApiOptions {
  /** The entry is in multi_turn_long_context (gorilla's `long_context=True`). */
  longContext: boolean;
  /**
   * "envtuning": AWorld EnvTuning's fork of the classes (its bfcl_env/func_source_code), which forks an older BFCL:
   * other functions (TradingBot's make_transaction, TravelAPI's book_flight with a travel_cost), other behaviour
   * (echo creates a missing file, find searches the current folder) and its own messages (envtuning-messages.ts).
   */
  fork?: "envtuning";
}

export interface LongContextData {
  WATCH_LIST_EXTENSION: unknown[];
  TRANSACTION_HISTORY_EXTENSION: Record<string, unknown>[];
  MA_5_EXTENSION: number[];
  MA_20_EXTENSION: number[];
  TECHNOLOGY_EXTENSION: string[];
  AUTOMOBILE_EXTENSION: string[];
  ORDER_DETAIL_EXTENSION: Record<string, string>;
  FILE_CONTENT_EXTENSION: string;
  POPULATE_FILE_EXTENSION: string[];
  CAR_STATUS_METADATA_EXTENSION: string;
  LONG_WEATHER_EXTENSION: Record<string, unknown>;
  PARKING_BRAKE_INSTRUCTION: string;
  INTERMEDIARY_CITIES: string[];
  CREDIT_CARD_EXTENSION: Record<string, Record<string, unknown>>;
  BOOKING_RECORD_EXTENSION: Record<string, Record<string, unknown>>;
  FILES_TAIL_USED: string[];
}

let cached: LongContextData | undefined;

/** Read once, on the first long-context entry; callers copy what they mutate. */
export function longContextData(): LongContextData {
  cached ??= JSON.parse(readFileSync(new URL("./long-context.json", import.meta.url), "utf8"), (_key, value) =>
    // The watch-list extension ends in a literal `...`: Python shows it as Ellipsis.
    value !== null && typeof value === "object" && value.$python === "Ellipsis" ? new PyOpaque("Ellipsis") : value,
  ) as LongContextData;
  return cached;
}
