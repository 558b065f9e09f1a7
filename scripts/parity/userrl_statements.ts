/**
 * Writes PersuadeGym's statements file (`all_statements_refined.json`: [{id, claim, argument}]) from UserRL's
 * persuasion parquet files, so UserRL's own PersuadeGym can load them for scripts/parity/userrl_gyms_parity.py (the
 * JSON is empty in UserRL's snapshot; the 420 statements exist only in `data/persuasion_multiturn/*.parquet`). Each
 * record also carries `split` (test first, then train), which PersuadeGym's loader ignores.
 *
 * Usage: npx tsx scripts/parity/userrl_statements.ts <UserRL checkout> > <UserRL>/gyms/PersuadeGym/persuadegym/data/all_statements_refined.json
 */
import path from "node:path";
import { createUserRlEnvironment } from "../../trainer/envs/userrl";

const root = process.argv[2];
if (!root) throw new Error("usage: userrl_statements.ts <UserRL checkout>");
const env = createUserRlEnvironment("persuade");
const statements = [];
for (const split of ["test", "train"]) {
  const tasks = await env.loadTasks!(path.join(root, "data/persuasion_multiturn", `${split}.parquet`));
  statements.push(...tasks.map((t) => ({ id: t.id, claim: t.data.claim, argument: t.data.argument, split })));
}
process.stdout.write(JSON.stringify(statements, null, 1));
