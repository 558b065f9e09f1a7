/**
 * UserRL gyms for the registry: `createUserRlEnvironment("telepathy" | "turtle" | "function" | "intention" | "persuade" | "search" | "travel")`,
 * registered as `userrl-<gym>`. Each ships its own task set (tasks/<gym>.json) and loads user files of the same
 * format with `loadTasks(path)`.
 */
import { readFileSync } from "node:fs";
import { TravelConfigSchema, UserRlConfigSchema } from "../../../lib/userrl-options";
import { scriptedDemonstration } from "../scripted-demonstration";
import type { Demonstration, Environment } from "../types";
import { createGymEpisode, type GymOptions, type GymRules } from "./gym-episode";
import { loadGymTasks, parseGymTasks, type GymData, type GymName } from "./task-schemas";
import { telepathyRules } from "./telepathy";
import { turtleRules } from "./turtle";
import { functionRules } from "./function-gym";
import { intentionRules } from "./intention";
import { persuadeRules } from "./persuade";
import { searchRules } from "./search";
import { travelRules } from "./travel";

export const USERRL_GYMS = [
  "telepathy",
  "turtle",
  "function",
  "intention",
  "persuade",
  "search",
  "travel",
] as const satisfies readonly GymName[];

const DESCRIPTIONS: Record<GymName, string> = {
  telepathy: "UserRL Telepathy: guess the entity the user thinks of by asking yes/no questions.",
  turtle: "UserRL Turtle: uncover the hidden story of a lateral-thinking puzzle (user answers yes / no / irrelevant).",
  function: "UserRL Function: discover a hidden four-input arithmetic function by probing it (deterministic).",
  intention: "UserRL Intention: uncover the real intent behind a vague request with clarifying questions.",
  persuade: "UserRL Persuade: argue a user who strongly agrees with a statement round to disagreeing with it.",
  search: "UserRL Search: answer a question, searching the web (an LLM plays the engine) as needed.",
  travel:
    "UserRL Travel: plan a trip — search each aspect's options, uncover the user's hidden preferences, recommend one option per aspect.",
};

// The rule objects are typed per gym; the map erases that so one factory serves all (data is validated on load).
// Travel's rules take its reward options, so they are built per environment.
const RULES: { [G in Exclude<GymName, "travel">]: GymRules<GymData<G>, unknown> } = {
  telepathy: telepathyRules as GymRules<GymData<"telepathy">, unknown>,
  turtle: turtleRules as GymRules<GymData<"turtle">, unknown>,
  function: functionRules as GymRules<GymData<"function">, unknown>,
  intention: intentionRules as GymRules<GymData<"intention">, unknown>,
  persuade: persuadeRules as GymRules<GymData<"persuade">, unknown>,
  search: searchRules as GymRules<GymData<"search">, unknown>,
};

export function createUserRlEnvironment<G extends GymName>(
  gym: G,
  config: GymOptions | Record<string, unknown> = {},
): Environment<GymData<G>> {
  if (!(USERRL_GYMS as readonly string[]).includes(gym))
    throw new Error(`unknown UserRL gym "${String(gym)}"; valid gyms: ${USERRL_GYMS.join(", ")}`);
  const parsed = (gym === "travel" ? TravelConfigSchema : UserRlConfigSchema).safeParse(config);
  if (!parsed.success) {
    throw new Error(
      `Invalid userrl-${gym} config: ${parsed.error.issues.map((i) => `${i.path.join(".") || "config"}: ${i.message}`).join("; ")}`,
    );
  }
  const options: GymOptions = parsed.data;
  const file = new URL(`./tasks/${gym}.json`, import.meta.url);
  const builtin = parseGymTasks(gym, JSON.parse(readFileSync(file, "utf8")), `trainer/envs/userrl/tasks/${gym}.json`, "builtin");
  const rules = (
    gym === "travel" ? travelRules(TravelConfigSchema.parse(parsed.data)) : RULES[gym as Exclude<GymName, "travel">]
  ) as GymRules<GymData<G>, unknown>;
  const env: Environment<GymData<G>> = {
    name: `userrl-${gym}`,
    description: DESCRIPTIONS[gym],
    builtinTasks: () => builtin,
    loadTasks: (path) => loadGymTasks(gym, path),
    createEpisode: (task, ctx) => createGymEpisode(task, ctx, rules, options),
    async demonstrations(tasks) {
      const played = await Promise.all(tasks.map((t) => scriptedDemonstration(env, t, (turn) => rules.solution(t.data)[turn] ?? null)));
      return played.filter((d): d is Demonstration => d !== null);
    },
  };
  return env;
}

type Config = GymOptions | Record<string, unknown>;
export const createTelepathyEnvironment = (c?: Config) => createUserRlEnvironment("telepathy", c);
export const createTurtleEnvironment = (c?: Config) => createUserRlEnvironment("turtle", c);
export const createFunctionEnvironment = (c?: Config) => createUserRlEnvironment("function", c);
export const createIntentionEnvironment = (c?: Config) => createUserRlEnvironment("intention", c);
export const createPersuadeEnvironment = (c?: Config) => createUserRlEnvironment("persuade", c);
export const createSearchEnvironment = (c?: Config) => createUserRlEnvironment("search", c);
export const createTravelEnvironment = (c?: Config) => createUserRlEnvironment("travel", c);
export type { GymName, GymData } from "./task-schemas";
