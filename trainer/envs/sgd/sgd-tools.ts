/**
 * The policy's tool list for an SGD task: one function per intent of the task's services, arguments described from
 * the schema's slot descriptions (categorical slots list their allowed values). Intent names are unique within a
 * service; if two services of one task share an intent name the function is qualified as `Service.Intent`.
 */
import { formatToolsPrompt, type ToolPromptStyle, type ToolSchema } from "../parse";
import type { SgdService } from "./sgd-format";

/** The function name the policy uses for `intent` of `service` among a task's services. */
export function sgdToolName(services: SgdService[], service: string, intent: string): string {
  const sharing = services.filter((s) => s.intents.some((i) => i.name === intent)).length;
  return sharing > 1 ? `${service}.${intent}` : intent;
}

/** The policy's system prompt for a task: the assistant's brief and, unless `toolStyle` is null (tools as schemas), its tools. */
export function sgdSystemPrompt(services: SgdService[], toolStyle: ToolPromptStyle | null): string {
  const brief =
    "You are a virtual assistant that helps users through online services. Today is Friday, March 1st, 2019. " +
    "Ask for details the user has not given, call a service to search or book (confirm bookings with the user " +
    "first), and tell the user what you found. When the user has everything they need, say goodbye.";
  return toolStyle ? `${brief}\n\n${formatToolsPrompt(sgdToolSchemas(services), toolStyle)}` : brief;
}

/** What the policy sees after a successful service call (at most 5 rows, plus how many there were). */
export function formatToolResults(results: Record<string, string>[]): string {
  return JSON.stringify({ count: results.length, results: results.slice(0, 5) });
}

export function sgdToolSchemas(services: SgdService[]): ToolSchema[] {
  return services.flatMap((s) =>
    s.intents.map((intent): ToolSchema => {
      const properties: Record<string, unknown> = {};
      for (const slotName of [...intent.requiredSlots, ...Object.keys(intent.optionalSlots)]) {
        const slot = s.slots.find((x) => x.name === slotName);
        const prop: Record<string, unknown> = { type: "string", description: slot?.description ?? slotName };
        if (slot?.isCategorical && slot.possibleValues.length > 0) prop.enum = slot.possibleValues;
        if (slotName in intent.optionalSlots) prop.default = intent.optionalSlots[slotName];
        properties[slotName] = prop;
      }
      return {
        name: sgdToolName(services, s.name, intent.name),
        description: `${intent.description} (${s.name}: ${s.description})${intent.isTransactional ? " Makes a booking or transaction; confirm with the user first." : ""}`,
        parameters: { type: "object", properties, required: intent.requiredSlots },
      };
    }),
  );
}
