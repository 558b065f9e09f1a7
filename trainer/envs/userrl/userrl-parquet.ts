/**
 * UserRL's training data files (`data/<gym>_multiturn/{train,test}.parquet`, written by its data_preprocess scripts):
 * one row per task, whose `extra_info.tools_kwargs.interact_with_env.create_kwargs` holds the record its environment
 * manager builds the gym from. PersuadeGym's statements live only there — its `all_statements_refined.json` is empty
 * in UserRL's snapshot — so a persuade data set may be one of these files: each row's `{id, claim, argument}` is the
 * statement PersuadeGym's loader would read (42 test + 378 train = 420).
 */
import { parquetReadObjects } from "hyparquet";
import { DatasetError } from "../types";
import type { GymName } from "./task-schemas";

/** The gyms whose records the parquet rows carry in full (others need fields the rows leave out, e.g. Turtle's criteria). */
const PARQUET_GYMS: Partial<Record<GymName, string>> = { persuade: "PersuadeGym" };

type Row = { extra_info?: { tools_kwargs?: { interact_with_env?: { create_kwargs?: Record<string, unknown> } } } };

export function isParquetFile(file: string): boolean {
  return /\.parquet$/i.test(file);
}

/** The gym records of a UserRL parquet file, as its gym's own loader reads them from JSON. */
export async function readUserRlParquet(gym: GymName, path: string, bytes: Buffer): Promise<Record<string, unknown>[]> {
  if (gym === "travel") throw new DatasetError(path, null, await travelParquetRefusal(path, bytes));
  const envName = PARQUET_GYMS[gym];
  if (!envName) {
    throw new DatasetError(
      path,
      null,
      `UserRL's parquet files are read for ${Object.keys(PARQUET_GYMS).join(", ")} only; use the gym's JSON data file for ${gym}`,
    );
  }
  let rows: Row[];
  try {
    const file = new Uint8Array(bytes).buffer; // a copy: a Buffer may share a larger pool
    rows = (await parquetReadObjects({ file })) as Row[];
  } catch (e) {
    throw new DatasetError(path, null, `not a readable Parquet file (${(e as Error).message})`);
  }
  return rows.map((row, i) => {
    const record = row.extra_info?.tools_kwargs?.interact_with_env?.create_kwargs;
    if (!record)
      throw new DatasetError(path, i, "the row has no extra_info.tools_kwargs.interact_with_env.create_kwargs (not UserRL's data)");
    if (record.env_name !== envName) {
      throw new DatasetError(path, i, `the row is a ${String(record.env_name)} task, not ${envName}'s`);
    }
    const { env_name: _env, ...fields } = record;
    return fields;
  });
}

type TravelRow = { reward_model?: { id?: unknown } };

/**
 * TravelGym's parquet rows name a scenario (`apartment:2-86|rental_car:2-60`) with its best option ids and the user's
 * opening message, nothing more: the options and preferences a gym plays on are only in TravelGym's
 * `travelgym_data_<N>.json`, which its preprocessing read them from (and which is empty in UserRL's snapshot).
 */
async function travelParquetRefusal(path: string, bytes: Buffer): Promise<string> {
  let rows: TravelRow[] = [];
  try {
    rows = (await parquetReadObjects({ file: new Uint8Array(bytes).buffer })) as TravelRow[];
  } catch {
    // unreadable: the refusal below says what to import instead either way
  }
  const n = /travel(\d+)_multiturn/i.exec(path)?.[1];
  const example = rows.find((r) => typeof r.reward_model?.id === "string")?.reward_model?.id;
  return (
    `UserRL's Travel parquet rows${rows.length ? ` (${rows.length} here${example ? `, e.g. ${String(example)}` : ""})` : ""} ` +
    `name scenarios with their best option ids and opening message, not the options and preferences a scenario is ` +
    `played on: import TravelGym's ${n ? `travelgym_data_${n}.json` : "travelgym_data_<N>.json"} instead`
  );
}
