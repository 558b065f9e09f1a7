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
  rollout-lab runs create --config run.yaml [--name NAME] [--notes TEXT] [--wait [--timeout S] [--min-reward X] [--metric KEY] [--cancel-on-timeout]]
  rollout-lab runs wait ID [--timeout S] [--min-reward X] [--metric KEY]
  rollout-lab runs get ID [--json]
  rollout-lab runs list [--status S] [--limit N]
  rollout-lab runs cancel ID
  rollout-lab runs resume ID
  rollout-lab runs export ID [--out FILE] [--split train|eval] [--layout simia --out DIR]
  rollout-lab eval --env ENV (--base-url URL --model M [--api-key-env NAME] | --gold | --checkpoint RUN[:STEP])
      [--k 4] [--tasks ID,ID] [--max-tasks N] [--max-cost USD --price-in USD --price-out USD (per 1M tokens)]
      [--concurrency N] [--temperature T] [--dataset PATH]
      [--no-wait] [--timeout S] [--min-pass X] [--metric eval/pass^4]
      (evaluation run: every task k times, nothing trained; prints pass@1, pass^k, mean reward per task; docs/evaluation.md)
  rollout-lab import FORMAT PATH [--name NAME] [--tag TAG]... [--tokenizer FILE|DIR] [--again]   (a run trained elsewhere; formats below;
      the same files twice: refused once imported, continued if the first import stopped; --again makes a second copy;
      --tokenizer: the policy's Hugging Face tokenizer.json, to show token ids as text — SkyRL's training batches)
  rollout-lab tokens create --name NAME [--scope read|write|ingest] [--database-url URL]
  rollout-lab tokens list [--all] [--database-url URL]
  rollout-lab tokens revoke ID_OR_PREFIX [--database-url URL]
  rollout-lab envs serve [--port P] [--host H] [--max-sessions N] [--max-sessions-per-client N] [--idle-timeout S] [--heartbeat-timeout S] [--max-message-bytes B] [--require-token]
      (serve every environment over OpenEnv's protocol at http://H:P/envs/<name>; docs/environment-server.md)
  rollout-lab sgd optimize-user --data SGD_DIR --base-url URL --model M [--api-key-env NAME] [--dev-dialogues N] [--dev-turns N] [--out DIR]
      (search the Agent Gym user simulator's prompt against real dialogues; saves sgd-user-v<N>.json, default dir .data/user-prompts)
  rollout-lab chat render --model DIR [--input FILE] [--tool-call-parser P]
      (a checkpoint's chat template and tokenizer as a run feeds the policy: reads {"messages", "tools"?, "add_generation_prompt"?,
      "template_kwargs"?} JSON or JSON Lines from FILE or stdin, prints {"text", "ids"} per conversation)
  rollout-lab chat parse --model DIR [--input FILE] [--tool-call-parser P]
      (reads a reply's text, prints {"content", "tool_calls": [{"name", "arguments"}]} as its family's parser reads it;
      P: auto, hermes, llama3_json, mistral or none; see docs/checkpoints.md)

Import formats (docs/import.md):
${importFormatsHelp}

Server and token: --url / ROLLOUT_LAB_URL (default http://127.0.0.1:3000), --token / ROLLOUT_LAB_TOKEN.
Token commands use the database directly (DATABASE_URL, or the embedded database of a running npm start).
Exit codes: 0 ok, 1 error, 2 usage, 3 bad config, 4 auth, 5 run failed, 6 run cancelled (or stopped at eval's
--max-cost), 7 reward below --min-reward (eval: below --min-pass), 8 timeout, 9 unknown run / conflict.`;

const OPTIONS = {
  url: { type: "string" },
  token: { type: "string" },
  config: { type: "string" },
  name: { type: "string" },
  notes: { type: "string" },
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
  env: { type: "string" },
  gold: { type: "boolean" },
  checkpoint: { type: "string" },
  k: { type: "string" },
  tasks: { type: "string" },
  "max-tasks": { type: "string" },
  "max-cost": { type: "string" },
  "price-in": { type: "string" },
  "price-out": { type: "string" },
  concurrency: { type: "string" },
  temperature: { type: "string" },
  "max-turns": { type: "string" },
  dataset: { type: "string" },
  "no-wait": { type: "boolean" },
  "min-pass": { type: "string" },
  input: { type: "string" },
  "tool-call-parser": { type: "string" },
  port: { type: "string" },
  host: { type: "string" },
  "max-sessions": { type: "string" },
  "max-sessions-per-client": { type: "string" },
  "idle-timeout": { type: "string" },
  "heartbeat-timeout": { type: "string" },
  "max-message-bytes": { type: "string" },
  "require-token": { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

export interface CliIo {
  out(line: string): void;
  err(line: string): void;
  /** Everything on standard input (the `chat` commands read it when no --input is given). */
  stdin?(): Promise<string>;
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) throw new CliError(EXIT.USAGE, "Nothing to read: give --input FILE or pipe the input on stdin.");
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

const consoleIo: CliIo = { out: (l) => process.stdout.write(`${l}\n`), err: (l) => process.stderr.write(`${l}\n`), stdin: readStdin };

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
    if (group === "envs") {
      if (command !== "serve") throw new CliError(EXIT.USAGE, `Unknown command "envs ${command ?? ""}".\n\n${HELP}`);
      // Loaded only here: the environments and the database client are not needed by the other commands.
      const { runEnvServerProcess, serveOptionsFrom } = await import("../trainer/env-server/main");
      let options;
      try {
        options = serveOptionsFrom(v);
      } catch (error) {
        throw new CliError(EXIT.USAGE, (error as Error).message);
      }
      try {
        return (await runEnvServerProcess(options)) === 0 ? EXIT.OK : EXIT.ERROR;
      } catch (error) {
        throw new CliError(EXIT.ERROR, (error as Error).message);
      }
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
    if (group === "chat") {
      if (command !== "render" && command !== "parse")
        throw new CliError(EXIT.USAGE, `Unknown command "chat ${command ?? ""}".\n\n${HELP}`);
      // Loaded only here: the tokenizer and template engine are not needed by the other commands.
      const { chatParse, chatRender } = await import("./chat");
      const { readFile } = await import("node:fs/promises");
      const input = v.input
        ? await readFile(v.input, "utf8").catch((e: NodeJS.ErrnoException) => {
            throw new CliError(EXIT.BAD_CONFIG, `Cannot read --input ${v.input} (${e.code ?? e.message}).`);
          })
        : await (io.stdin ?? readStdin)();
      const opts = { model: v.model, input, toolCallParser: v["tool-call-parser"] };
      if (command === "render") await chatRender(opts, io.out, io.err);
      else await chatParse(opts, io.out, io.err);
      return EXIT.OK;
    }
    if (group !== "runs" && group !== "import" && group !== "eval")
      throw new CliError(EXIT.USAGE, `Unknown command "${group}".\n\n${HELP}`);

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
    if (group === "eval") {
      if (command) throw new CliError(EXIT.USAGE, `eval takes flags only, got "${command}".\n\n${HELP}`);
      const { evalCommand } = await import("./eval");
      const minPass = numberFlag("min-pass", v["min-pass"]);
      return await evalCommand(
        client,
        {
          env: v.env,
          "base-url": v["base-url"],
          model: v.model,
          "api-key-env": v["api-key-env"],
          gold: v.gold,
          checkpoint: v.checkpoint,
          k: numberFlag("k", v.k, 1),
          tasks: v.tasks,
          "max-tasks": numberFlag("max-tasks", v["max-tasks"], 1),
          "max-cost": numberFlag("max-cost", v["max-cost"], 0),
          "price-in": numberFlag("price-in", v["price-in"], 0),
          "price-out": numberFlag("price-out", v["price-out"], 0),
          concurrency: numberFlag("concurrency", v.concurrency, 1),
          temperature: numberFlag("temperature", v.temperature, 0),
          "max-turns": numberFlag("max-turns", v["max-turns"], 1),
          dataset: v.dataset,
          name: v.name,
          wait: !v["no-wait"],
        },
        { ...waitOpts, ...(minPass !== undefined ? { minReward: minPass } : {}) },
        io,
      );
    }
    const runPath = (id: string) => `/runs/${encodeURIComponent(id)}`;
    switch (command) {
      case "create": {
        if (!v.config) throw new CliError(EXIT.USAGE, "runs create needs --config <file.json|file.yaml>.");
        const config = await readConfigFile(v.config);
        if (v.name) config.name = v.name;
        // Notes are the run's metadata, not its config (editable later, never cloned): sent beside it.
        const created = await client.create<{ id: string; url: string }>("/runs", {
          config,
          ...(v.notes !== undefined && { notes: v.notes }),
        });
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
