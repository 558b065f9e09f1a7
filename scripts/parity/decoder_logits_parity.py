"""Parity fixture for Rollout Lab's Qwen3 decoder and Llama 3.1's scaled rotary positions (issue #28): small
safetensors folders with random weights and the logits PyTorch computes for them.

The reference is a plain PyTorch re-implementation of transformers' Qwen3ForCausalLM forward pass, written from its
modeling file (transformers/models/qwen3/modeling_qwen3.py): RMSNorm in float32, q_proj / k_proj viewed per head and
each head RMS-normalised by q_norm / k_norm (weights of head_dim) *before* rotary positions, rotate-half RoPE with
inv_freq = 1 / theta^(2i / head_dim), grouped-query attention scaled by head_dim^-0.5 with a causal mask and a
float32 softmax, SwiGLU MLP, final norm, LM head (tied or not). head_dim is set apart from hidden_size / heads, as in
Qwen3-0.6B (128 with 1024 / 16), so a decoder that derives it from the hidden size fails.

Llama 3.1 and 3.2 configs set rope_scaling {"rope_type": "llama3", factor, low_freq_factor, high_freq_factor,
original_max_position_embeddings}: transformers' _compute_llama3_parameters keeps frequencies whose wavelength is
shorter than original / high_freq_factor, divides those longer than original / low_freq_factor by factor, and blends
the ones between (weight (original / wavelength - low) / (high - low) on the unscaled value). The Llama folder uses a
short original context (32) so the scaled frequencies move the logits within its 13 positions.

Folders (written next to the JSON, read by trainer/checkpoint/decoder-parity.test.ts):
  qwen3-f32/          untied LM head, float32 weights
  qwen3-bf16-tied/    tied embeddings, bfloat16 weights (the reference computes in float32 on the bf16-rounded
                      values, as the trainer does)
  llama3-rope-scaled/ a Llama config with llama3 rotary scaling, float32

Usage (Debian's python3-torch; pyenv's python3 has no torch):
  /usr/bin/python3 scripts/parity/decoder_logits_parity.py tests/fixtures/parity/decoders
  /usr/bin/python3 scripts/parity/decoder_logits_parity.py --logits FOLDER
The second form reads a folder Rollout Lab saved (config.json + model.safetensors, any of F32 / BF16 / F16) and prints
{"dtypes", "logits"} for PROMPTS as JSON: trainer/checkpoint/save-as-loaded.test.ts checks a saved checkpoint with it.
"""
import json
import math
import os
import struct
import sys

import torch

CONFIG = {
    "architectures": ["Qwen3ForCausalLM"],
    "model_type": "qwen3",
    "vocab_size": 96,
    "hidden_size": 48,
    "intermediate_size": 80,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "head_dim": 16,
    "max_position_embeddings": 64,
    "rope_theta": 1000000.0,
    "rope_scaling": None,
    "rms_norm_eps": 1e-6,
    "attention_bias": False,
    "hidden_act": "silu",
    "use_sliding_window": False,
    "sliding_window": None,
}
PROMPTS = [[5, 17, 42, 3, 88, 61, 9, 0, 33, 71, 12, 50, 7], [90, 2, 2, 64, 31, 18, 76, 45]]


LLAMA3_CONFIG = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "vocab_size": 96,
    "hidden_size": 48,
    "intermediate_size": 80,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "head_dim": 12,
    "max_position_embeddings": 64,
    "rope_theta": 10000.0,
    "rope_scaling": {"rope_type": "llama3", "factor": 4.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 32},
    "rms_norm_eps": 1e-5,
    "attention_bias": False,
    "mlp_bias": False,
    "hidden_act": "silu",
}


def inverse_frequencies(cfg):
    hd = cfg["head_dim"]
    inv = 1.0 / (cfg["rope_theta"] ** (torch.arange(0, hd, 2, dtype=torch.int64).float() / hd))
    scaling = cfg.get("rope_scaling")
    if not scaling:
        return inv
    factor, low, high, old = (scaling[k] for k in ("factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings"))
    wavelength = 2 * math.pi / inv
    scaled = torch.where(wavelength > old / low, inv / factor, inv)
    blend = (old / wavelength - low) / (high - low)
    between = (wavelength >= old / high) & (wavelength <= old / low)
    return torch.where(between, (1 - blend) * scaled / factor + blend * scaled, scaled)


def weights(cfg, tied, seed):
    gen = torch.Generator().manual_seed(seed)
    d, hd, h, kv, mlp, v = (cfg[k] for k in ("hidden_size", "head_dim", "num_attention_heads", "num_key_value_heads", "intermediate_size", "vocab_size"))
    rand = lambda *shape: torch.randn(*shape, generator=gen) * 0.2
    # norms around 1 but not 1, so a decoder that skipped one would be caught
    norm = lambda n: 1 + torch.randn(n, generator=gen) * 0.1
    w = {"model.embed_tokens.weight": rand(v, d), "model.norm.weight": norm(d)}
    for i in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{i}."
        w[p + "input_layernorm.weight"] = norm(d)
        w[p + "self_attn.q_proj.weight"] = rand(h * hd, d)
        w[p + "self_attn.k_proj.weight"] = rand(kv * hd, d)
        w[p + "self_attn.v_proj.weight"] = rand(kv * hd, d)
        w[p + "self_attn.o_proj.weight"] = rand(d, h * hd)
        if cfg["model_type"] == "qwen3":
            w[p + "self_attn.q_norm.weight"] = norm(hd)
            w[p + "self_attn.k_norm.weight"] = norm(hd)
        w[p + "post_attention_layernorm.weight"] = norm(d)
        w[p + "mlp.gate_proj.weight"] = rand(mlp, d)
        w[p + "mlp.up_proj.weight"] = rand(mlp, d)
        w[p + "mlp.down_proj.weight"] = rand(d, mlp)
    if not tied:
        w["lm_head.weight"] = rand(v, d)
    return w


def rms_norm(x, weight, eps):
    x32 = x.to(torch.float32)
    return weight * (x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + eps))


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def forward(cfg, w, ids, tied):
    """ids [T] -> logits [T, vocab], float32."""
    d, hd, h, kv, eps = (cfg[k] for k in ("hidden_size", "head_dim", "num_attention_heads", "num_key_value_heads", "rms_norm_eps"))
    T = len(ids)
    qk_norm = cfg["model_type"] == "qwen3"
    head_norm = lambda x, name: rms_norm(x, w[name], eps) if qk_norm else x
    angles = torch.outer(torch.arange(T).float(), inverse_frequencies(cfg))
    cos, sin = torch.cat((angles, angles), -1).cos(), torch.cat((angles, angles), -1).sin()
    causal = torch.full((T, T), float("-inf")).triu(1)
    x = w["model.embed_tokens.weight"][torch.tensor(ids)]
    for i in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{i}."
        n = rms_norm(x, w[p + "input_layernorm.weight"], eps)
        q = head_norm((n @ w[p + "self_attn.q_proj.weight"].T).view(T, h, hd), p + "self_attn.q_norm.weight").transpose(0, 1)
        k = head_norm((n @ w[p + "self_attn.k_proj.weight"].T).view(T, kv, hd), p + "self_attn.k_norm.weight").transpose(0, 1)
        v = (n @ w[p + "self_attn.v_proj.weight"].T).view(T, kv, hd).transpose(0, 1)
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        k, v = k.repeat_interleave(h // kv, dim=0), v.repeat_interleave(h // kv, dim=0)
        scores = (q @ k.transpose(1, 2)) * hd**-0.5 + causal
        attn = (torch.softmax(scores.float(), dim=-1) @ v).transpose(0, 1).reshape(T, h * hd)
        x = x + attn @ w[p + "self_attn.o_proj.weight"].T
        n = rms_norm(x, w[p + "post_attention_layernorm.weight"], eps)
        gate = n @ w[p + "mlp.gate_proj.weight"].T
        x = x + (torch.nn.functional.silu(gate) * (n @ w[p + "mlp.up_proj.weight"].T)) @ w[p + "mlp.down_proj.weight"].T
    x = rms_norm(x, w["model.norm.weight"], eps)
    head = w["model.embed_tokens.weight"] if tied else w["lm_head.weight"]
    return x @ head.T


def write_safetensors(path, tensors, dtype):
    """The safetensors layout (8-byte header length, JSON header, raw little-endian data), without the package."""
    header, blobs, offset = {"__metadata__": {"format": "pt"}}, [], 0
    for name, t in tensors.items():
        t = t.contiguous()
        if dtype == "BF16":
            raw = t.to(torch.bfloat16).view(torch.int16).numpy().tobytes()
        else:
            raw = t.to(torch.float32).numpy().tobytes()
        header[name] = {"dtype": dtype, "shape": list(t.shape), "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def main(out):
    cases = {}
    for name, base, tied, dtype, seed in (
        ("qwen3-f32", CONFIG, False, "F32", 3),
        ("qwen3-bf16-tied", CONFIG, True, "BF16", 4),
        ("llama3-rope-scaled", LLAMA3_CONFIG, False, "F32", 5),
    ):
        cfg = {**base, "tie_word_embeddings": tied, "torch_dtype": "float32" if dtype == "F32" else "bfloat16"}
        w = weights(cfg, tied, seed)
        if dtype == "BF16":
            w = {k: t.to(torch.bfloat16).to(torch.float32) for k, t in w.items()}
        folder = os.path.join(out, name)
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "config.json"), "w") as f:
            json.dump(cfg, f, indent=2)
        write_safetensors(os.path.join(folder, "model.safetensors"), w, dtype)
        with torch.no_grad():
            cases[name] = [[[round(float(x), 7) for x in row] for row in forward(cfg, w, ids, tied)] for ids in PROMPTS]
    with open(os.path.join(out, "logits.json"), "w") as f:
        json.dump({"source": "scripts/parity/decoder_logits_parity.py", "torch": torch.__version__, "prompts": PROMPTS, "logits": cases}, f)


def read_safetensors(path):
    """The layout write_safetensors writes, read back (without the package); values widened to float32."""
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + n])
    out, dtypes = {}, {}
    torch_types = {"F32": torch.float32, "BF16": torch.bfloat16, "F16": torch.float16}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        begin, end = e["data_offsets"]
        raw = bytearray(data[8 + n + begin : 8 + n + end])
        t = torch.frombuffer(raw, dtype=torch_types[e["dtype"]]) if raw else torch.zeros(0)
        out[name] = t.reshape(e["shape"]).to(torch.float32)
        dtypes[name] = e["dtype"]
    return out, dtypes


def logits_of(folder):
    with open(os.path.join(folder, "config.json")) as f:
        cfg = json.load(f)
    cfg.setdefault("head_dim", cfg["hidden_size"] // cfg["num_attention_heads"])
    w, dtypes = read_safetensors(os.path.join(folder, "model.safetensors"))
    tied = "lm_head.weight" not in w
    with torch.no_grad():
        logits = [[[round(float(x), 7) for x in row] for row in forward(cfg, w, ids, tied)] for ids in PROMPTS]
    json.dump({"torch": torch.__version__, "dtypes": sorted(set(dtypes.values())), "logits": logits}, sys.stdout)


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--logits":
        logits_of(sys.argv[2])
    else:
        main(sys.argv[1] if len(sys.argv) > 1 else "tests/fixtures/parity/decoders")
