/**
 * The chat templates of policies that bring none: the built-in sizes on the byte tokenizer, and a bare
 * tokenizer.json without a tokenizer_config.json. They are plain Jinja, rendered by the same engine as a
 * checkpoint's own, and documented here because the policy learns exactly this layout:
 *
 *   ChatML (byte tokenizer, or a tokenizer with <|im_start|> / <|im_end|>): every message, tool results included,
 *     is `<|im_start|>{role}\n{content}<|im_end|>\n`; the generation prompt is `<|im_start|>assistant\n`.
 *   Llama 3 (a tokenizer with <|start_header_id|> / <|eot_id|>): `<|begin_of_text|>`, then per message
 *     `<|start_header_id|>{role}<|end_header_id|>\n\n{content}<|eot_id|>`, tool results under the role `ipython`.
 *
 * Neither renders tools: environments write their tool list into the system prompt in their own words
 * (toolPresentation "prompt") and read the reply's calls from its text.
 */
export const BUILTIN_CHATML = [
  "{%- for message in messages %}",
  "{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>\\n' }}",
  "{%- endfor %}",
  "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}",
].join("\n");

export const BUILTIN_LLAMA3 = [
  "{{- '<|begin_of_text|>' }}",
  "{%- for message in messages %}",
  "{%- set role = 'ipython' if message.role == 'tool' else message.role %}",
  "{{- '<|start_header_id|>' + role + '<|end_header_id|>\\n\\n' + message.content + '<|eot_id|>' }}",
  "{%- endfor %}",
  "{%- if add_generation_prompt %}{{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{%- endif %}",
].join("\n");
