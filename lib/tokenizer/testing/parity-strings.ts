/**
 * The strings the tokenizer parity tests encode (issue #28): every kind of text a policy meets or writes — prose in
 * many scripts, text that is not in Unicode normal form C (combining accents, decomposed Hangul, the Ångström and
 * Ohm signs), emoji sequences, code, whitespace runs, tool-call JSON in each family's format, and the family's
 * special tokens inside text — then seeded mixtures of them, so a difference in any stage of a tokenizer (normalizer,
 * pre-tokenizer regex, merges, added-token matching) shows up. Deterministic: the same list on every machine.
 */
import { mulberry32 } from "../../seeded-random";

const PROSE = [
  "Hello world",
  "The quick brown fox jumps over the lazy dog.",
  "I'm sure it's fine, isn't it? They'll see; we'd know. DON'T PANIC. You've WON'T",
  "Order #W2378156 was delivered on 2024-05-01 at 14:05.",
  "Your refund of $1,234.56 (USD) is on its way.",
  "Le café est fermé ; à demain, señor García — naïve coöperation.",
  "Grüße aus Köln! Straße, Maß, Fußgänger.",
  "Съешь же ещё этих мягких французских булок, да выпей чаю.",
  "Τάχιστη αλώπηξ βαφής ψημένη γη, δρασκελίζει υπέρ νωθρού κυνός",
  "我能吞下玻璃而不伤身体。请问您的订单号是多少？",
  "私はガラスを食べられます。それは私を傷つけません。カタカナ、ひらがな",
  "나는 유리를 먹을 수 있어요. 그래도 아프지 않아요",
  "أنا قادر على أكل الزجاج و هذا لا يؤلمني.",
  "אני יכול לאכול זכוכית וזה לא מזיק לי.",
  "मैं काँच खा सकता हूँ और मुझे उससे कोई चोट नहीं पहुंचती.",
  "ฉันกินกระจกได้ แต่มันไม่ทำให้ฉันเจ็บ",
  "Tôi có thể ăn thủy tinh mà không hại gì.",
  "1234567890 3.14159 -42 1e-9 0x1F 1,000,000 007",
];

/** Text whose NFC form differs: tokenizers with an NFC normalizer (Qwen) must encode the composed form. */
const NOT_NFC = [
  "cafe\u0301",
  "e\u0301te\u0301",
  "n\u0303o",
  "A\u030angstro\u0308m",
  "\u212b",
  "\u2126hm",
  "\u1112\u1161\u11ab\u1100\u1173\u11af",
  "Cre\u0300me bru\u0302le\u0301e",
  "a\u0308\u0304",
  "\u0041\u030a\u0301",
  "Z\u0327\u030c",
  "s\u0323\u0307",
];

/** Compatibility characters NFC leaves alone (NFKC would not): a normalizer mix-up shows here. */
const COMPAT = ["ﬁﬂ", "①②③", "Ⅻ", "ＡＢＣ１２３", "㎞", "½", "x²", "ℌ", "…", "™"];

const EMOJI = ["😀", "👍🏽", "👨‍👩‍👧‍👦", "🇫🇷🇯🇵", "1️⃣", "❤️", "🏳️‍🌈", "🧑🏿‍💻", "🤖🦾", "🐍🦀☕"];

const CODE = [
  'def add(a: int, b: int) -> int:\n    """Sum."""\n    return a + b\n',
  "for (let i = 0; i < n; i++) {\n\tconsole.log(`i=${i}`);\n}",
  "SELECT id, name FROM users WHERE age >= 18 ORDER BY name DESC;",
  '#!/bin/bash\nset -euo pipefail\nfor f in *.json; do jq . "$f" > /dev/null; done',
  '{"a": [1, 2, {"b": null}], "c": true, "d": "x\\ny"}',
  '<div class="x">&lt;tag&gt; &amp; </div>',
  'fn main() { println!("{:?}", vec![1u8; 3]); }',
  "if x != None and y <= 3: pass  # noqa",
  "    indented\n        more\n\tand a tab",
  "a->b => c :: d ... e ?? f ||= g",
];

const WHITESPACE = [
  " ",
  "  ",
  "   leading",
  "trailing   ",
  "\n",
  "\n\n",
  "\n\n\n\n",
  "\r\n",
  "\r\n\r\n",
  "\t",
  "\t\t\tx",
  " \n \n ",
  "a \n\nb",
  "\u00a0nbsp\u00a0",
  "ideographic\u3000space",
  "line\u2028separator",
  "x    \n    y",
  "\n \t\n",
];

const TOOL_CALLS = [
  '<tool_call>\n{"name": "get_order_details", "arguments": {"order_id": "#W2378156"}}\n</tool_call>',
  '<tool_call>\n{"name": "search", "arguments": {"query": "flights to Paris", "max": 3}}\n</tool_call>\n<tool_call>\n{"name": "book", "arguments": {}}\n</tool_call>',
  '{"name": "get_weather", "parameters": {"city": "São Paulo", "unit": "celsius"}}',
  '[TOOL_CALLS] [{"name": "transfer", "arguments": {"amount": 12.5, "to": "acct_9"}, "id": "a1b2c3d4e"}]',
  '<tool_response>\n{"status": "ok", "items": [{"id": 1, "price": 9.99}]}\n</tool_response>',
  '{"output": "No results found."}',
  '{"type": "function", "function": {"name": "x", "description": "Does x.", "parameters": {"type": "object", "properties": {"y": {"type": "string"}}, "required": ["y"]}}}',
];

/** A family's special tokens placed inside text, next to text and to each other, and near-misses of them. */
function specialStrings(specials: readonly string[]): string[] {
  const out: string[] = [];
  for (const s of specials) {
    out.push(s, `${s}${s}`, `x${s}y`, ` ${s} `, `\n${s}\n`, `${s}user\nHi`, s.slice(0, -1), s.slice(1), s.toUpperCase());
  }
  return out;
}

const BASE = [...PROSE, ...NOT_NFC, ...COMPAT, ...EMOJI, ...CODE, ...WHITESPACE, ...TOOL_CALLS];
const SEPARATORS = ["", " ", "\n", "\n\n", "  ", "\t", ". ", ", ", "\r\n", " \n"];

/**
 * The parity set for one tokenizer: the base strings, the family's special tokens in context, and seeded mixtures
 * (1-6 fragments, each possibly cut at a random character) up to `total` strings.
 */
export function parityStrings(specials: readonly string[], total = 2400, seed = 28): string[] {
  const rnd = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const fixed = [...BASE, ...specialStrings(specials)];
  const pool = [...fixed, ...specials];
  const out = [...fixed];
  while (out.length < total) {
    const n = 1 + Math.floor(rnd() * 6);
    let s = "";
    for (let i = 0; i < n; i++) {
      let part = pick(pool);
      // a cut inside a fragment lands mid-word, mid-number, mid-emoji-sequence (but never between UTF-16 halves)
      if (rnd() < 0.3) part = [...part].slice(0, 1 + Math.floor(rnd() * [...part].length)).join("");
      s += (i ? pick(SEPARATORS) : "") + part;
    }
    out.push(s);
  }
  return out;
}
