export { parsePolicyAction, toolCallIdPrefix } from "./policy-action";
export type { PolicyAction, ParseError, ParseErrorCode, ParseResult, ParseOptions } from "./policy-action";
export { formatToolCallText, formatToolsPrompt } from "./tool-prompt";
export type { ToolSchema, ToolPromptStyle } from "./tool-prompt";
export { formatErrorObservation } from "./error-observation";
