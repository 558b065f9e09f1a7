export { createSimulatedEnvironment, SimulatedEnvConfigSchema, BUILTIN_TASKS_DIR } from "./environment";
export type { SimulatedEnvConfig, SimulatedEnvConfigInput } from "./environment";
export { DEFAULT_SIMULATED_PROMPTS, SimulatedPromptsSchema, TERMINATE_MARKER, renderTemplate } from "../../../lib/simulated-prompts";
export type { SimulatedPrompts } from "../../../lib/simulated-prompts";
export { SimulatedTaskDataSchema, SimulatedTaskRecordSchema } from "./task-schema";
export type { SimulatedTaskData } from "./task-schema";
export { loadSimulatedTasks, parseSimulatedTaskFile } from "./importer";
