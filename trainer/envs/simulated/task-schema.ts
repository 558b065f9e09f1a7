/**
 * Task shape of the simulated (Simia-RL GeneralSimulated) environment, modelled on APIGen-MT blueprints: a user
 * goal with persona and the facts the user knows, the tools the agent may call (JSON Schema), and the expected
 * outcome (calls with their results, facts the agent must tell the user, calls that violate policy). The offline
 * simulators and judge are driven entirely by this; an LLM simulator gets it rendered into its prompt.
 */
import { z } from "zod";

export const ToolSchemaSchema = z.object({
  name: z.string().regex(/^[A-Za-z_][\w.-]*$/, "tool names are identifiers"),
  description: z.string(),
  parameters: z.record(z.string(), z.unknown()).default({ type: "object", properties: {} }),
});

export const ExpectedCallSchema = z.object({
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()).default({}),
  /** What the tool returns for this call (the offline tool simulator's answer). */
  result: z.unknown(),
});

export const UserFactSchema = z.object({
  /** Words in an agent message that count as asking for this fact (lower-case substring match). */
  keys: z.array(z.string().min(1)).min(1),
  value: z.string(),
  /** How the user states it. */
  say: z.string(),
});

export const SimulatedTaskDataSchema = z.object({
  domain: z.string().min(1),
  /** The user's goal, written to the user simulator ("You want to ..."). */
  instruction: z.string().min(1),
  persona: z.string().default(""),
  /** The user's first message. */
  opening: z.string().min(1),
  /** Rules the agent must follow (goes into the agent's system prompt). */
  policy: z.string().default(""),
  facts: z.array(UserFactSchema).default([]),
  /** What the offline user says, in order, when the agent asks nothing it knows (e.g. from a reference dialogue). */
  followUps: z.array(z.string()).default([]),
  tools: z.array(ToolSchemaSchema).default([]),
  /** Results for tool calls that are not part of the expected outcome. */
  toolDefaults: z.record(z.string(), z.unknown()).default({}),
  expected: z
    .object({
      calls: z.array(ExpectedCallSchema).default([]),
      /** Strings the agent must communicate to the user (case-insensitive substring of its messages). */
      facts: z.array(z.string()).default([]),
      /** Calls that break policy; making one fails the episode. */
      forbiddenCalls: z.array(z.string()).default([]),
    })
    .default({ calls: [], facts: [], forbiddenCalls: [] }),
  /** The agent's system prompt verbatim (an imported Simia-RL sample's `system`); otherwise one is composed. */
  systemPrompt: z.string().optional(),
  /** Reference dialogue from an imported Simia-RL sample (ShareGPT `from`/`value`), shown to LLM simulators. */
  reference: z.array(z.object({ from: z.string(), value: z.string() })).optional(),
});
export type SimulatedTaskData = z.infer<typeof SimulatedTaskDataSchema>;
export type ExpectedCall = z.infer<typeof ExpectedCallSchema>;

/** One record of a task file: the Task envelope flattened with its data. */
export const SimulatedTaskRecordSchema = SimulatedTaskDataSchema.extend({
  id: z.string().min(1),
  split: z.string().default("train"),
  tags: z.array(z.string()).default([]),
});
