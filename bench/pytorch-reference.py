"""
The PyTorch side of `npm run bench:trainer`: the same reference decoder and the same measurements, so the TF.js
figures are compared with PyTorch on *this* machine rather than with a number measured elsewhere.

Reference shape: vocab 256, d_model 128, 4 layers, 4 heads, context 128, MLP 512, untied embeddings; one training
step = forward + backward + AdamW (weight decay 0.01, grad-norm clip 1) over 16 rows of 128 tokens, i.e. 16 x 127
predicted positions (next-token cross-entropy), exactly the work of the TF.js step; sampling = KV-cache decoding of
112 new tokens after a 16-token prompt, batch 1 and 16. Llama layout as trainer/policy/model.ts (RMSNorm pre-norm,
rotary "rotate_half", SwiGLU). Prints one JSON object with every step's wall and CPU (process) time. Needs python3
with torch (Debian: apt-get install python3-torch); bench/pytorch.ts runs it. Not part of the product.

    python3 bench/pytorch-reference.py [--steps N] [--threads N] [--quick]
"""
import argparse
import json
import math
import os
import platform
import time

import torch
import torch.nn.functional as F

V, D, L, H, CTX, MLP = 256, 128, 4, 4, 128, 512
HD = D // H


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.n1 = torch.nn.Parameter(torch.ones(D))
        self.n2 = torch.nn.Parameter(torch.ones(D))
        self.q = torch.nn.Linear(D, D, bias=False)
        self.k = torch.nn.Linear(D, D, bias=False)
        self.v = torch.nn.Linear(D, D, bias=False)
        self.o = torch.nn.Linear(D, D, bias=False)
        self.gate = torch.nn.Linear(D, MLP, bias=False)
        self.up = torch.nn.Linear(D, MLP, bias=False)
        self.down = torch.nn.Linear(MLP, D, bias=False)


def rms_norm(x, w, eps=1e-5):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


def rotate_half(x):
    a, b = x[..., : HD // 2], x[..., HD // 2 :]
    return torch.cat((-b, a), dim=-1)


class Decoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(V, D)
        self.blocks = torch.nn.ModuleList(Block() for _ in range(L))
        self.norm = torch.nn.Parameter(torch.ones(D))
        self.head = torch.nn.Linear(D, V, bias=False)
        inv = 10000.0 ** (-torch.arange(0, HD, 2).float() / HD)
        ang = torch.outer(torch.arange(CTX).float(), inv)
        ang = torch.cat((ang, ang), dim=-1)
        self.register_buffer("cos", ang.cos())
        self.register_buffer("sin", ang.sin())

    def forward(self, ids, cache=None):
        """ids [B, T] -> logits [B, T, V]; with `cache` (a list of (k, v) per layer, or []) decodes incrementally."""
        B, T = ids.shape
        past = cache[0][0].shape[2] if cache else 0
        cos, sin = self.cos[past : past + T], self.sin[past : past + T]
        h = self.embed(ids)
        for i, blk in enumerate(self.blocks):
            x = rms_norm(h, blk.n1)
            q = blk.q(x).view(B, T, H, HD).transpose(1, 2)
            k = blk.k(x).view(B, T, H, HD).transpose(1, 2)
            v = blk.v(x).view(B, T, H, HD).transpose(1, 2)
            q = q * cos + rotate_half(q) * sin
            k = k * cos + rotate_half(k) * sin
            if cache is not None:
                if len(cache) > i:
                    k = torch.cat((cache[i][0], k), dim=2)
                    v = torch.cat((cache[i][1], v), dim=2)
                    cache[i] = (k, v)
                else:
                    cache.append((k, v))
            att = (q @ k.transpose(-1, -2)) / math.sqrt(HD)
            if T > 1:
                mask = torch.full((T, past + T), float("-inf")).triu(past + 1)
                att = att + mask
            y = (att.softmax(-1) @ v).transpose(1, 2).reshape(B, T, D)
            h = h + blk.o(y)
            x = rms_norm(h, blk.n2)
            h = h + blk.down(F.silu(blk.gate(x)) * blk.up(x))
        return self.head(rms_norm(h, self.norm))


def train_step_seconds(model, steps):
    """Wall and CPU seconds of each timed step (after one warm-up step)."""
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.01)
    ids = torch.randint(0, V, (16, CTX))
    inputs, targets = ids[:, :-1], ids[:, 1:]

    def step():
        opt.zero_grad(set_to_none=True)
        logits = model(inputs)
        loss = F.cross_entropy(logits.reshape(-1, V), targets.reshape(-1))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        return loss.item()

    step()  # warm-up
    wall, cpu = [], []
    for _ in range(steps):
        t0, c0 = time.perf_counter(), time.process_time()
        step()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return wall, cpu


@torch.no_grad()
def sampled_tokens_per_second(model, batch, new_tokens, prompt=16):
    def run(n):
        ids = torch.randint(0, V, (batch, prompt))
        cache = []
        logits = model(ids, cache)[:, -1]
        for _ in range(n):
            nxt = torch.multinomial(torch.softmax(logits, -1), 1)
            logits = model(nxt, cache)[:, -1]

    run(4)  # warm-up
    t0 = time.perf_counter()
    run(new_tokens)
    return batch * new_tokens / (time.perf_counter() - t0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(args.threads)
    model = Decoder()
    wall, cpu = train_step_seconds(model, 2 if args.quick else args.steps)
    new_tokens = 16 if args.quick else CTX - 16
    print(
        json.dumps(
            {
                "torch": torch.__version__,
                "threads": torch.get_num_threads(),
                "python": platform.python_version(),
                "parameters": sum(p.numel() for p in model.parameters()),
                "stepSeconds": [round(t, 4) for t in wall],
                "stepCpuSeconds": [round(t, 4) for t in cpu],
                "sampledTokensPerSecond": {
                    "batch1": round(sampled_tokens_per_second(model, 1, new_tokens)),
                    "batch16": round(sampled_tokens_per_second(model, 16, new_tokens)),
                },
            }
        )
    )


if __name__ == "__main__":
    main()
