export { parsePolicyAction, readPolicyAction, toolCallIdPrefix } from "./policy-action";
export type { PolicyAction, ParseError, ParseErrorCode, ParseResult, ParseOptions, StructuredToolCall } from "./policy-action";
export { formatToolCallText, formatToolsPrompt, textWithToolCalls } from "./tool-prompt";
export type { ToolSchema, ToolPromptStyle } from "./tool-prompt";
export { formatErrorObservation } from "./error-observation";
