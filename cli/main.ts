/**
 * rollout-lab — launch and watch Rollout Lab runs from a terminal or CI. See `rollout-lab help` and docs/api.md.
 * Returns the exit code (exit-codes.ts) instead of exiting, so tests can call it in-process.
 */
import { createWriteStream } from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { ApiClient } from "./api-client";
import { readConfigFile } from "./config-file";
import { importCommand, importFormatsHelp } from "./import";
import { writeSimiaLayout } from "./simia-layout";
import { CliError, EXIT, type ExitCode } from "./exit-codes";
import { waitForRun, type RunStatus } from "./wait";

const HELP = `rollout-lab — launch and watch Rollout Lab runs

Usage:
  rollout-lab runs create --config run.yaml [--name NAME] [--wait [--timeout S] [--min-reward X] [--metric KEY] [--cancel-on-timeout]]
  rollout-lab runs wait ID [--timeout S] [--min-reward X] [--metric KEY]
  rollout-lab runs get ID [--json]
  rollout-lab runs list [--status S] [--limit N]
  rollout-lab runs cancel ID
  rollout-lab runs resume ID
  rollout-lab runs export ID [--out FILE] [--split train|eval] [--layout simia --out DIR]
  rollout-lab import FORMAT PATH [--name NAME] [--tag TAG]... [--tokenizer FILE|DIR] [--again]   (a run trained elsewhere; formats below;
      the same files twice: refused once imported, continued if the first import stopped; --again makes a second copy;
      --tokenizer: the policy's Hugging Face tokenizer.json, to show token ids as text — SkyRL's training batches)
  rollout-lab tokens create --name NAME [--scope read|write|ingest] [--database-url URL]
  rollout-lab tokens list [--all] [--database-url URL]
  rollout-lab tokens revoke ID_OR_PREFIX [--database-url URL]
  rollout-lab sgd optimize-user --data SGD_DIR --base-url URL --model M [--api-key-env NAME] [--dev-dialogues N] [--dev-turns N] [--out DIR]
      (search the Agent Gym user simulator's prompt against real dialogues; saves sgd-user-v<N>.json, default dir .data/user-prompts)

Import formats (docs/import.md):
${importFormatsHelp}

Server and token: --url / ROLLOUT_LAB_URL (default http://127.0.0.1:3000), --token / ROLLOUT_LAB_TOKEN.
Token commands use the database directly (DATABASE_URL, or the embedded database of a running npm start).
Exit codes: 0 ok, 1 error, 2 usage, 3 bad config, 4 auth, 5 run failed, 6 run cancelled, 7 reward below
--min-reward, 8 timeout, 9 unknown run / conflict.`;

const OPTIONS = {
  url: { type: "string" },
  token: { type: "string" },
  config: { type: "string" },
  name: { type: "string" },
  wait: { type: "boolean" },
  timeout: { type: "string" },
  "min-reward": { type: "string" },
  metric: { type: "string" },
  interval: { type: "string" },
  "cancel-on-timeout": { type: "boolean" },
  json: { type: "boolean" },
  status: { type: "string" },
  limit: { type: "string" },
  out: { type: "string" },
  split: { type: "string" },
  scope: { type: "string" },
  "database-url": { type: "string" },
  all: { type: "boolean" },
  tag: { type: "string", multiple: true },
  again: { type: "boolean" },
  layout: { type: "string" },
  tokenizer: { type: "string" },
  data: { type: "string" },
  "base-url": { type: "string" },
  model: { type: "string" },
  "api-key-env": { type: "string" },
  "dev-dialogues": { type: "string" },
  "dev-turns": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

export interface CliIo {
  out(line: string): void;
  err(line: string): void;
}

const consoleIo: CliIo = { out: (l) => process.stdout.write(`${l}\n`), err: (l) => process.stderr.write(`${l}\n`) };

function numberFlag(name: string, raw: string | undefined, min = -Infinity): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (raw.trim() === "" || !Number.isFinite(n) || n < min)
    throw new CliError(EXIT.USAGE, `--${name} must be a number${min > -Infinity ? ` ≥ ${min}` : ""}, got "${raw}".`);
  return n;
}

export async function main(argv: string[], io: CliIo = consoleIo): Promise<ExitCode> {
  try {
    let parsed;
    try {
      parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
    } catch (error) {
      throw new CliError(EXIT.USAGE, `${(error as Error).message}\n\n${HELP}`);
    }
    const { values: v, positionals } = parsed;
    const [group, command, arg] = positionals;
    if (v.help || !group || group === "help") {
      io.out(HELP);
      return group || v.help ? EXIT.OK : EXIT.USAGE;
    }
    const need = (what: string) => {
      if (!arg) throw new CliError(EXIT.USAGE, `Missing ${what}: rollout-lab ${group} ${command} <${what}>`);
      return arg;
    };
    if (group === "tokens") {
      // Loaded only here: the database client is heavy and the runs commands never need it.
      const { databaseUrlFromEnv, tokensCreate, tokensList, tokensRevoke } = await import("./tokens");
      const databaseUrl = databaseUrlFromEnv(v["database-url"]);
      if (command === "create") {
        if (!v.name) throw new CliError(EXIT.USAGE, "tokens create needs --name (e.g. --name github-actions).");
        const scope = v.scope ?? "write";
        if (scope !== "read" && scope !== "write" && scope !== "ingest")
          throw new CliError(EXIT.USAGE, `--scope must be read, write or ingest, got "${scope}".`);
        await tokensCreate({ databaseUrl, name: v.name, scopes: [scope] }, io.out, io.err);
      } else if (command === "list") await tokensList({ databaseUrl, all: Boolean(v.all) }, io.out);
      else if (command === "revoke") await tokensRevoke({ databaseUrl, idOrPrefix: need("id or prefix") }, io.out);
      else throw new CliError(EXIT.USAGE, `Unknown command "tokens ${command ?? ""}".\n\n${HELP}`);
      return EXIT.OK;
    }
    if (group === "sgd") {
      if (command !== "optimize-user") throw new CliError(EXIT.USAGE, `Unknown command "sgd ${command ?? ""}".\n\n${HELP}`);
      const required = (name: "data" | "base-url" | "model") => {
        if (!v[name]) throw new CliError(EXIT.USAGE, `sgd optimize-user needs --${name}.`);
        return v[name];
      };
      // Loaded only here: the trainer's LLM client and SGD code are not needed by the other commands.
      const { optimizeUserPrompt } = await import("./sgd-optimize");
      await optimizeUserPrompt(
        {
          data: required("data"),
          baseUrl: required("base-url"),
          model: required("model"),
          apiKeyEnv: v["api-key-env"],
          devDialogues: numberFlag("dev-dialogues", v["dev-dialogues"], 1) ?? 8,
          devTurns: numberFlag("dev-turns", v["dev-turns"], 1) ?? 24,
          out: v.out ?? path.join(process.env.ROLLOUT_LAB_DATA_DIR || ".data", "user-prompts"),
        },
        io.out,
      );
      return EXIT.OK;
    }
    if (group !== "runs" && group !== "import") throw new CliError(EXIT.USAGE, `Unknown command "${group}".\n\n${HELP}`);

    const client = new ApiClient({
      url: v.url ?? process.env.ROLLOUT_LAB_URL ?? "http://127.0.0.1:3000",
      token: v.token ?? process.env.ROLLOUT_LAB_TOKEN,
    });
    if (group === "import")
      return await importCommand(
        client,
        { format: command, target: arg, name: v.name, tags: v.tag ?? [], tokenizer: v.tokenizer, again: Boolean(v.again) },
        io,
      );
    const waitOpts = {
      timeoutSeconds: numberFlag("timeout", v.timeout, 0),
      minReward: numberFlag("min-reward", v["min-reward"]),
      metric: v.metric,
      intervalSeconds: numberFlag("interval", v.interval, 0.05) ?? 2,
      cancelOnTimeout: Boolean(v["cancel-on-timeout"]),
      log: io.err,
    };
    const runPath = (id: string) => `/runs/${encodeURIComponent(id)}`;
    switch (command) {
      case "create": {
        if (!v.config) throw new CliError(EXIT.USAGE, "runs create needs --config <file.json|file.yaml>.");
        const config = await readConfigFile(v.config);
        if (v.name) config.name = v.name;
        const created = await client.create<{ id: string; url: string }>("/runs", { config });
        io.out(created.id);
        io.err(`Created run ${created.id}: ${created.url}`);
        if (!v.wait) return EXIT.OK;
        return (await waitForRun(client, created.id, waitOpts)).code;
      }
      case "wait":
        return (await waitForRun(client, need("run id"), waitOpts)).code;
      case "get": {
        const run = await client.json<RunStatus & Record<string, unknown>>("GET", runPath(need("run id")));
        if (v.json) io.out(JSON.stringify(run, null, 2));
        else {
          io.out(`${run.id}  ${run.status}  step ${run.step}/${run.totalSteps}  reward ${run.latestReward ?? "—"}  ${run.url}`);
          if (run.error) io.out(`error: ${run.error}`);
        }
        return EXIT.OK;
      }
      case "list": {
        const query = new URLSearchParams();
        if (v.status) query.set("status", v.status);
        if (v.limit) query.set("limit", v.limit);
        const page = await client.json<{ items: { id: string; name: string; status: string; step: number; totalSteps: number }[] }>(
          "GET",
          `/runs?${query}`,
        );
        for (const r of page.items) io.out(`${r.id}  ${r.status.padEnd(9)}  ${r.step}/${r.totalSteps}  ${r.name}`);
        return EXIT.OK;
      }
      case "cancel":
      case "resume": {
        const result = await client.json<{ message: string }>("POST", `${runPath(need("run id"))}/${command}`);
        io.out(result.message);
        return EXIT.OK;
      }
      case "export": {
        const query = v.split ? `?split=${encodeURIComponent(v.split)}` : "";
        if (v.layout !== undefined && v.layout !== "simia")
          throw new CliError(EXIT.USAGE, `--layout must be "simia" (one file per episode as Simia-RL writes them), got "${v.layout}".`);
        if (v.layout === "simia" && !v.out)
          throw new CliError(EXIT.USAGE, "--layout simia needs --out DIR (the training_record folder to write).");
        const res = await client.raw("GET", `${runPath(need("run id"))}/export.jsonl${query}`);
        const body = Readable.fromWeb(res.body as import("node:stream/web").ReadableStream<Uint8Array>);
        if (v.layout === "simia") {
          const written = await writeSimiaLayout(body, v.out!);
          io.err(`Wrote ${written} records under ${v.out} (sample_<index>/env_<id>_ep<episode>_<time>.json)`);
          return EXIT.OK;
        }
        if (v.out) {
          await pipeline(body, createWriteStream(v.out));
          io.err(`Wrote ${v.out}`);
        } else await pipeline(body, process.stdout, { end: false });
        return EXIT.OK;
      }
      default:
        throw new CliError(EXIT.USAGE, `Unknown command "runs ${command ?? ""}".\n\n${HELP}`);
    }
  } catch (error) {
    if (error instanceof CliError) {
      io.err(`rollout-lab: ${error.message}`);
      return error.exitCode;
    }
    io.err(`rollout-lab: unexpected error: ${(error as Error).message}`);
    return EXIT.ERROR;
  }
}
