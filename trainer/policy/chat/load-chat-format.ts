/**
 * A policy's ChatFormat from files, as transformers' AutoTokenizer.from_pretrained finds them in a model folder:
 *
 *   tokenizer.json           the tokenizer (required)
 *   tokenizer_config.json    special tokens and, usually, `chat_template` (a string or named templates)
 *   chat_template.jinja      the template as its own file (newer transformers save it so); wins over the above
 *   generation_config.json   `eos_token_id` (one id or a list): sampling stops on each
 *
 * A folder with a tokenizer but no template gets the built-in template its special tokens fit (ChatML or Llama 3,
 * builtin-templates.ts) unless a template is required (the CLI's `chat render`); the byte tokenizer always does.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { readDataFile, readDataJson } from "../../data-roots";
import { loadHfTokenizer, specialTokenText, type TokenizerConfig, type TokenizerJson } from "../../../lib/tokenizer/hf-tokenizer";
import { TokenizerError, type Tokenizer } from "../../../lib/tokenizer/types";
import { ByteTokenizer } from "../tokenizer/byte";
import type { RunConfig } from "../../../lib/run-config";
import { ChatFormat } from "./chat-format";
import { BUILTIN_CHATML, BUILTIN_LLAMA3 } from "./builtin-templates";
import { ChatTemplate, ChatTemplateError, SPECIAL_TOKEN_KEYS } from "./template";
import { detectToolCallFormat, type ToolCallFormat } from "./tool-call-formats";

/** The files of a model folder that make up its tokenizer and chat format (copied with a checkpoint Rollout Lab saves). */
export const TOKENIZER_FILES = ["tokenizer.json", "tokenizer_config.json", "chat_template.jinja", "generation_config.json"] as const;

export interface ChatFormatSettings {
  kwargs?: Record<string, unknown>;
  toolCallParser?: RunConfig["policy"]["toolCallParser"];
}

/** The chat settings of a run config. */
export const chatSettingsOf = (config: RunConfig): ChatFormatSettings => ({
  kwargs: config.policy.chatTemplateKwargs,
  toolCallParser: config.policy.toolCallParser,
});

export interface TokenizerFolder {
  dir: string;
  tokenizer: Tokenizer;
  config: TokenizerConfig;
  template: ChatTemplate | null;
  eosTokenIds: number[];
}

const exists = (file: string) =>
  fs.stat(file).then(
    (s) => s.isFile(),
    () => false,
  );

/** The folder's tokenizer files; `location` is the folder or its tokenizer.json. */
export async function readTokenizerFolder(location: string): Promise<TokenizerFolder> {
  const isFile = await exists(location);
  const dir = isFile ? path.dirname(location) : location;
  const tokenizerFile = isFile ? location : path.join(dir, "tokenizer.json");
  if (!(await exists(tokenizerFile))) throw new TokenizerError(`${dir} has no tokenizer.json.`);
  const configFile = path.join(dir, "tokenizer_config.json");
  const config = (await exists(configFile)) ? await readDataJson<TokenizerConfig>(configFile) : {};
  const tokenizer = loadHfTokenizer(await readDataJson<TokenizerJson>(tokenizerFile), config);
  const specials: Record<string, string> = {};
  for (const key of SPECIAL_TOKEN_KEYS) {
    const text = specialTokenText(config[key]);
    if (text !== undefined) specials[key] = text;
  }
  let template: ChatTemplate | null = null;
  const jinjaFile = path.join(dir, "chat_template.jinja");
  if (await exists(jinjaFile)) template = new ChatTemplate(await readDataFile(jinjaFile), jinjaFile, specials);
  else if (config.chat_template !== undefined && config.chat_template !== null) {
    const source = config.chat_template;
    const valid =
      typeof source === "string" ||
      (Array.isArray(source) && source.every((t) => typeof t?.name === "string" && typeof t?.template === "string"));
    if (!valid) throw new ChatTemplateError(`${configFile}'s chat_template is neither a string nor a list of {name, template}.`);
    template = new ChatTemplate(source as string | { name: string; template: string }[], configFile, specials);
  }
  const generationFile = path.join(dir, "generation_config.json");
  const generation = (await exists(generationFile)) ? await readDataJson<{ eos_token_id?: unknown }>(generationFile) : {};
  const eos = generation.eos_token_id;
  const eosTokenIds = (Array.isArray(eos) ? eos : [eos]).filter((id): id is number => Number.isInteger(id));
  return { dir, tokenizer, config, template, eosTokenIds };
}

/** The built-in template a tokenizer's special tokens fit (ChatML for the byte tokenizer). */
export function builtinTemplate(tok: Tokenizer): ChatTemplate {
  if (tok.tokenId("<|im_start|>") !== undefined && tok.tokenId("<|im_end|>") !== undefined)
    return new ChatTemplate(BUILTIN_CHATML, "Rollout Lab's built-in ChatML template");
  if (tok.tokenId("<|start_header_id|>") !== undefined && tok.tokenId("<|eot_id|>") !== undefined)
    return new ChatTemplate(BUILTIN_LLAMA3, "Rollout Lab's built-in Llama 3 template");
  throw new TokenizerError(
    "The tokenizer has no chat template and neither ChatML (<|im_start|>, <|im_end|>) nor Llama 3 (<|start_header_id|>, <|eot_id|>) special tokens; add a tokenizer_config.json with a chat_template.",
  );
}

/** The tool-call format replies are read in: the setting, or the template's own when it renders tools. */
function toolCallFormatOf(format: ChatFormat, setting: ChatFormatSettings["toolCallParser"]): ToolCallFormat | null {
  if (setting === "none") return null;
  const renders = format.rendersTools();
  const origin = format.template.origin;
  if (setting && setting !== "auto") {
    if (!renders)
      throw new ChatTemplateError(
        `policy.toolCallParser is "${setting}" but the chat template in ${origin} does not render tools; set it to "none" (tools in the environment's prompt).`,
      );
    return setting;
  }
  if (!renders) return null;
  const detected = detectToolCallFormat(format.template.source);
  if (!detected)
    throw new ChatTemplateError(
      `The chat template in ${origin} renders tools, but its call format is not one Rollout Lab recognises; set policy.toolCallParser to hermes, llama3_json or mistral, or to "none" to leave tools to the environment's prompt.`,
    );
  return detected;
}

export function chatFormatOf(
  tokenizer: Tokenizer,
  template: ChatTemplate,
  settings: ChatFormatSettings = {},
  eosTokenIds: number[] = [],
  folder: string | null = null,
): ChatFormat {
  const base = { tokenizer, template, kwargs: settings.kwargs, eosTokenIds, folder };
  const probe = new ChatFormat({ ...base, toolCallFormat: null });
  const toolCallFormat = toolCallFormatOf(probe, settings.toolCallParser);
  return toolCallFormat ? new ChatFormat({ ...base, toolCallFormat }) : probe;
}

/** The byte tokenizer (or another without a template of its own) with the built-in template its tokens fit. */
export function builtinChatFormat(tok: Tokenizer = new ByteTokenizer(), settings: ChatFormatSettings = {}): ChatFormat {
  return chatFormatOf(tok, builtinTemplate(tok), settings);
}

/**
 * The ChatFormat of a tokenizer folder (or tokenizer.json). `requireTemplate`: fail when the folder has no chat
 * template instead of using a built-in one.
 */
export async function loadChatFormat(
  location: string,
  settings: ChatFormatSettings = {},
  opts: { requireTemplate?: boolean } = {},
): Promise<ChatFormat> {
  const folder = await readTokenizerFolder(location);
  if (!folder.template && opts.requireTemplate) {
    throw new ChatTemplateError(
      `${folder.dir} has no chat template (neither chat_template in tokenizer_config.json nor chat_template.jinja).`,
    );
  }
  return chatFormatOf(folder.tokenizer, folder.template ?? builtinTemplate(folder.tokenizer), settings, folder.eosTokenIds, folder.dir);
}
