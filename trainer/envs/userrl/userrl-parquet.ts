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
