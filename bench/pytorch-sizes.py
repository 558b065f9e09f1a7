"""
The PyTorch side of `npm run bench:trainer -- --sizes`: one training step (forward + backward + AdamW, next-token
cross-entropy) of a Llama/Qwen2-style decoder of the given shape, as trainer/policy/model.ts builds it (RMSNorm
pre-norm, rotary "rotate_half", grouped-query attention, optional q/k/v bias, SwiGLU, optional tied embeddings,
optional LoRA on q/k/v/o with the base frozen). Prints one JSON object: each timed step's wall and CPU seconds (CPU:
user + sys of every thread of the process), peak RSS, and with --sample N the tokens/s of KV-cache decoding N new
tokens after a 16-token prompt at each batch of --sample-batches (default 1). AdamW with weight decay 0.01 (its
default, stated) and grad-norm clip 1, as bench/trainer-sizes.ts configures ours. Needs
python3 with torch (Debian: apt-get install python3-torch). Not part of the product: nothing imports it.

    python3 bench/pytorch-sizes.py --vocab 32000 --d 768 --layers 12 --heads 12 --kv-heads 12 --mlp 2048 \\
        --batch 16 --context 128 [--tied] [--bias] [--lora 16] [--reference] [--steps 2] [--threads 2]

--reference keeps a frozen fp32 copy of the model (as TRL and verl keep a KL reference in the policy's dtype) and
scores the batch with it, without gradients, before every step.
"""
import copy
import argparse
import contextlib
import json
import math
import os
import resource
import time

import torch
import torch.nn.functional as F

WARM_UP_STEPS = 2  # as bench/trainer-sizes.ts: both sides time the same steps


def rms_norm(x, w, eps=1e-5):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


class LoraLinear(torch.nn.Module):
    """A frozen linear map plus a trainable low-rank update (B starts at zero, as PEFT does)."""

    def __init__(self, base, rank, alpha):
        super().__init__()
        self.base = base
        for p in base.parameters():
            p.requires_grad_(False)
        self.a = torch.nn.Parameter(torch.empty(base.in_features, rank).uniform_(-1 / math.sqrt(base.in_features), 1 / math.sqrt(base.in_features)))
        self.b = torch.nn.Parameter(torch.zeros(rank, base.out_features))
        self.scale = alpha / rank

    def forward(self, x):
        return self.base(x) + (x @ self.a @ self.b) * self.scale


class Block(torch.nn.Module):
    def __init__(self, a):
        super().__init__()
        d, hd = a.d, a.d // a.heads
        self.n1 = torch.nn.Parameter(torch.ones(d))
        self.n2 = torch.nn.Parameter(torch.ones(d))
        self.q = torch.nn.Linear(d, a.heads * hd, bias=a.bias)
        self.k = torch.nn.Linear(d, a.kv_heads * hd, bias=a.bias)
        self.v = torch.nn.Linear(d, a.kv_heads * hd, bias=a.bias)
        self.o = torch.nn.Linear(a.heads * hd, d, bias=False)
        self.gate = torch.nn.Linear(d, a.mlp, bias=False)
        self.up = torch.nn.Linear(d, a.mlp, bias=False)
        self.down = torch.nn.Linear(a.mlp, d, bias=False)


class Decoder(torch.nn.Module):
    def __init__(self, a):
        super().__init__()
        self.a = a
        self.embed = torch.nn.Embedding(a.vocab, a.d)
        self.blocks = torch.nn.ModuleList(Block(a) for _ in range(a.layers))
        self.norm = torch.nn.Parameter(torch.ones(a.d))
        self.head = None if a.tied else torch.nn.Linear(a.d, a.vocab, bias=False)
        hd = a.d // a.heads
        inv = 10000.0 ** (-torch.arange(0, hd, 2).float() / hd)
        ang = torch.outer(torch.arange(a.context).float(), inv)
        ang = torch.cat((ang, ang), dim=-1)
        self.register_buffer("cos", ang.cos())
        self.register_buffer("sin", ang.sin())

    def forward(self, ids, cache=None):
        """ids [B, T] -> logits; with `cache` (a list of (k, v) per layer, or []) decodes incrementally."""
        a = self.a
        B, T = ids.shape
        hd = a.d // a.heads
        group = a.heads // a.kv_heads
        past = cache[0][0].shape[2] if cache else 0
        cos, sin = self.cos[past : past + T], self.sin[past : past + T]

        def rope(x):
            x1, x2 = x[..., : hd // 2], x[..., hd // 2 :]
            return x * cos + torch.cat((-x2, x1), dim=-1) * sin

        mask = torch.full((T, past + T), float("-inf")).triu(past + 1)
        h = self.embed(ids)
        for i, blk in enumerate(self.blocks):
            x = rms_norm(h, blk.n1)
            q = rope(blk.q(x).view(B, T, a.heads, hd).transpose(1, 2))
            k = rope(blk.k(x).view(B, T, a.kv_heads, hd).transpose(1, 2))
            v = blk.v(x).view(B, T, a.kv_heads, hd).transpose(1, 2)
            if cache is not None:
                if len(cache) > i:
                    k = torch.cat((cache[i][0], k), dim=2)
                    v = torch.cat((cache[i][1], v), dim=2)
                    cache[i] = (k, v)
                else:
                    cache.append((k, v))
            k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
            att = (q @ k.transpose(-1, -2)) / math.sqrt(hd) + mask
            y = (att.softmax(-1) @ v).transpose(1, 2).reshape(B, T, a.heads * hd)
            h = h + blk.o(y)
            x = rms_norm(h, blk.n2)
            h = h + blk.down(F.silu(blk.gate(x)) * blk.up(x))
        x = rms_norm(h, self.norm)
        return x @ self.embed.weight.t() if self.head is None else self.head(x)


def main():
    ap = argparse.ArgumentParser()
    for name in ("vocab", "d", "layers", "heads", "kv-heads", "mlp", "batch", "context"):
        ap.add_argument(f"--{name}", type=int, required=True)
    ap.add_argument("--tied", action="store_true")
    ap.add_argument("--bias", action="store_true")
    ap.add_argument("--lora", type=int, default=0)
    ap.add_argument("--steps", type=int, default=2)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--sample", type=int, default=0)
    ap.add_argument("--sample-batches", default="1")
    ap.add_argument("--reference", action="store_true")
    # PyTorch's CPU mixed precision: matmuls on bf16 operands with fp32 accumulation, weights and AdamW state fp32
    ap.add_argument("--autocast-bf16", action="store_true")
    a = ap.parse_args()
    torch.manual_seed(0)
    if a.threads:
        torch.set_num_threads(a.threads)
    model = Decoder(a)
    params = sum(p.numel() for p in model.parameters())
    if a.lora:
        for p in model.parameters():
            p.requires_grad_(False)
        for blk in model.blocks:
            for name in ("q", "k", "v", "o"):
                setattr(blk, name, LoraLinear(getattr(blk, name), a.lora, 2 * a.lora))
    reference = copy.deepcopy(model).requires_grad_(False).eval() if a.reference else None
    trainable = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(trainable, lr=1e-4, weight_decay=0.01)
    ids = torch.randint(0, a.vocab, (a.batch, a.context + 1))
    inputs, targets = ids[:, :-1], ids[:, 1:]

    precision = torch.autocast("cpu", dtype=torch.bfloat16) if a.autocast_bf16 else contextlib.nullcontext()

    def step():
        if reference is not None:
            with torch.no_grad(), precision:
                F.log_softmax(reference(inputs).float(), -1).gather(-1, targets.unsqueeze(-1))
        opt.zero_grad(set_to_none=True)
        with precision:
            logits = model(inputs)
        loss = F.cross_entropy(logits.float().reshape(-1, a.vocab), targets.reshape(-1))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(trainable, 1.0)
        opt.step()

    for _ in range(WARM_UP_STEPS):  # the first allocates AdamW's state; the second still faults in fresh pages
        step()
    times, cpu_times, sys_times = [], [], []
    for _ in range(a.steps):
        t0, c0, s0 = time.perf_counter(), time.process_time(), os.times().system
        step()
        times.append(round(time.perf_counter() - t0, 4))
        cpu_times.append(round(time.process_time() - c0, 4))
        sys_times.append(round(os.times().system - s0, 4))
    sampled = None
    if a.sample:
        sampled = {}
        with torch.no_grad():
            def decode(batch, n):
                ids = torch.randint(0, a.vocab, (batch, 16))
                cache = []
                logits = model(ids, cache)[:, -1]
                for _ in range(n):
                    nxt = torch.multinomial(torch.softmax(logits, -1), 1)
                    logits = model(nxt, cache)[:, -1]

            for batch in (int(b) for b in a.sample_batches.split(",")):
                decode(batch, 4)  # warm-up
                t0 = time.perf_counter()
                decode(batch, a.sample)
                sampled[f"batch{batch}"] = round(batch * a.sample / (time.perf_counter() - t0), 1)
    print(json.dumps({
        "torch": torch.__version__,
        "autocastBf16": a.autocast_bf16,
        "threads": torch.get_num_threads(),
        "parameters": params,
        "trainable": sum(p.numel() for p in trainable),
        "stepSeconds": times,
        "stepCpuSeconds": cpu_times,
        "stepSystemSeconds": sys_times,
        "peakRssMiB": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "sampledTokensPerSecond": sampled,
    }))


if __name__ == "__main__":
    main()
