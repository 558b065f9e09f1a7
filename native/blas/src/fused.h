/*
 * Fused transformer kernels for the trainer's decoder (trainer/policy/fused.ts): each replaces a chain of 3-20
 * TF.js ops (and their gradients) with one pass over memory. Row-major float32 throughout; int32 where noted.
 * Nothing here allocates a result: callers pass buffers the TF.js backend already owns.
 */
#ifndef ROLLOUT_LAB_FUSED_H
#define ROLLOUT_LAB_FUSED_H
#include <stdint.h>

/* y = x / sqrt(mean(x^2) + eps) * w over rows of x [R, D] (LlamaRMSNorm). */
void rmsnorm_fwd(const float *x, const float *w, int64_t R, int64_t D, float eps, float *y);
/* dx [R, D] and dw [D] (summed over rows) for the above, given dy. */
void rmsnorm_bwd(const float *dy, const float *x, const float *w, int64_t R, int64_t D, float eps, float *dx, float *dw);

/*
 * Rotary positions, transformers' rotate_half convention: for each row r (position pos[r]) and head,
 * y1 = x1 cos - sign x2 sin, y2 = x2 cos + sign x1 sin over the two halves of each head. sign -1 is the inverse
 * rotation, which is also the gradient. cos/sin tables are [maxPos, hd] (the frequency vector repeated twice).
 * Returns 0 (nothing written) when a position is outside [0, maxPos). x and y must not overlap.
 */
int rope_apply(const float *x, const int32_t *pos, const float *cos_t, const float *sin_t, int64_t maxPos, int64_t R,
               int64_t heads, int64_t hd, int sign, float *y);

/* SwiGLU (Shazeer 2020): y = silu(g) * u, and its gradient. */
void swiglu_fwd(const float *g, const float *u, int64_t n, float *y);
void swiglu_bwd(const float *dy, const float *g, const float *u, int64_t n, float *dg, float *du);

/*
 * Causal grouped-query attention without transposes: q [B, T, H*hd], k/v [B, Tk, KV*hd] (Tk = past + T; query i
 * sits at position past + i). keyMask [B, Tk] (1 real, 0 padding) or NULL. Writes out [B, T, H*hd] and the
 * attention probabilities p [B, H, T, Tk] (kept for the backward pass). A query with no visible key gets zeros.
 */
void attn_fwd(const float *q, const float *k, const float *v, const float *keyMask, int64_t B, int64_t T, int64_t Tk,
              int64_t H, int64_t KV, int64_t hd, int64_t past, float scale, float *out, float *p);
/* Gradients of the above given dout [B, T, H*hd] and the saved p: dq like q, dk/dv like k/v. */
void attn_bwd(const float *dout, const float *q, const float *k, const float *v, const float *p, int64_t B, int64_t T,
              int64_t Tk, int64_t H, int64_t KV, int64_t hd, float scale, float *dq, float *dk, float *dv);

/*
 * Per-row log-probability of target[r] and entropy under softmax(logits[r]) for logits [N, V]:
 * out[0, r] = log p(target[r]), out[1, r] = -sum_j p_j log p_j. Returns 0 on a target outside [0, V).
 */
int logprob_fwd(const float *logits, const int32_t *target, int64_t N, int64_t V, float *out);
/* dlogits [N, V] given d(out) [2, N]. */
void logprob_bwd(const float *logits, const int32_t *target, const float *dout, int64_t N, int64_t V, float *dlogits);

/*
 * One AdamW step (decoupled decay), element-wise: g' = g * clip; m' = b1 m + (1-b1) g'; v' = b2 v + (1-b2) g'^2;
 * p' = p - lr (m'/bc1 / (sqrt(v'/bc2) + eps) + wd p). Outputs are separate buffers (TF.js tensors are immutable).
 */
typedef struct {
  float lr, b1, b2, eps, wd, bc1, bc2, clip;
} adamw_params;
void adamw_step(const float *p, const float *m, const float *v, const float *g, int64_t n, const adamw_params *hp,
                float *p2, float *m2, float *v2);
/* The same step overwriting p, m and v (four distinct buffers; the caller checks nothing else shares them). */
void adamw_step_inplace(float *p, float *m, float *v, const float *g, int64_t n, const adamw_params *hp);
/* adamw_step_inplace that also writes the new p rounded to bf16 (bf16_encode's rounding) into p16. */
void adamw_step_inplace_bf16(float *p, float *m, float *v, const float *g, int64_t n, const adamw_params *hp,
                             uint16_t *p16);

/*
 * The same step with 8-bit moments, blockwise (Dettmers et al. 2022, 8-bit optimizers): each block of ADAMW8_BLOCK
 * values keeps a float scale (its largest |m|, its largest v) and one byte per value. m is stored as
 * sign * round(127 sqrt(|m| / scale)) and v as round(255 (v / scale)^(1/4)) — maps that give small values more
 * codes than a linear one, so v (which divides the step) spans ten decades; a non-zero v never becomes code 0.
 * The moments are decoded, stepped in fp32 and encoded again; outputs are separate buffers.
 */
#define ADAMW8_BLOCK 256
void adamw8_step(const float *p, const float *g, int64_t n, const adamw_params *hp, const int8_t *mq, const float *ms,
                 const uint8_t *vq, const float *vs, float *p2, int8_t *mq2, float *ms2, uint8_t *vq2, float *vs2);
void adamw8_decode(const int8_t *mq, const float *ms, const uint8_t *vq, const float *vs, int64_t n, float *m, float *v);
void adamw8_encode(const float *m, const float *v, int64_t n, int8_t *mq, float *ms, uint8_t *vq, float *vs);

/* sum of x^2 in double precision (global gradient norm). */
double sum_squares(const float *x, int64_t n);

#endif
