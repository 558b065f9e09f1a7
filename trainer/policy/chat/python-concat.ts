/**
 * One place where @huggingface/jinja is more lenient than the Jinja2 transformers runs: `"text" + value` with a list
 * or a dict. Python raises `TypeError: can only concatenate str (not "list") to str`; the engine pastes the value's
 * JSON-like text in. So Qwen2.5's template, given an OpenAI content array (`[{"type": "text", …}]`), rendered the
 * array's text into the prompt where transformers refuses the conversation. Installed once, for every template this
 * process renders: such a concatenation now raises Python's error.
 */
import { Interpreter } from "@huggingface/jinja";

interface Value {
  type: string;
}
interface BinaryNode {
  type: string;
  operator: { value: string };
  left: unknown;
  right: unknown;
}
interface InterpreterInternals {
  evaluate(node: unknown, env: unknown): Value;
  evaluateBinaryExpression(node: BinaryNode, env: unknown): Value;
}

/** Python's name of a container value (the engine's value types), or null for anything else. */
const PYTHON_CONTAINER: Record<string, string> = {
  ArrayValue: "list",
  TupleValue: "tuple",
  ObjectValue: "dict",
  KeywordArgumentsValue: "dict",
};
/** A node standing for a value already evaluated, so each operand is evaluated once. */
const EVALUATED = "RolloutLabEvaluated";

let installed = false;

export function installPythonConcatenation(): void {
  if (installed) return;
  installed = true;
  const proto = Interpreter.prototype as unknown as InterpreterInternals;
  const evaluate = proto.evaluate;
  const binary = proto.evaluateBinaryExpression;
  proto.evaluate = function (node, env) {
    const n = node as { type?: string; value?: Value };
    return n?.type === EVALUATED ? (n.value as Value) : evaluate.call(this, node, env);
  };
  proto.evaluateBinaryExpression = function (node, env) {
    if (node.operator.value !== "+") return binary.call(this, node, env);
    const left = this.evaluate(node.left, env);
    const right = this.evaluate(node.right, env);
    const container = PYTHON_CONTAINER[left.type === "StringValue" ? right.type : left.type];
    if ((left.type === "StringValue") !== (right.type === "StringValue") && container) {
      throw new Error(
        left.type === "StringValue"
          ? `can only concatenate str (not "${container}") to str`
          : `can only concatenate ${container} (not "str") to ${container}`,
      );
    }
    return binary.call(this, { ...node, left: { type: EVALUATED, value: left }, right: { type: EVALUATED, value: right } }, env);
  };
}
