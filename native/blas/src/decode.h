/*
 * One decoder layer for one new token per sequence (KV-cache decoding), in a single call. Sampling a token with
 * op-level kernels costs ~22 TF.js ops per layer, whose fixed per-op cost (~8 us each) dominated batch-1 decoding
 * of small policies; this does the same arithmetic in one native pass per layer.
 */
#ifndef ROLLOUT_LAB_DECODE_H
#define ROLLOUT_LAB_DECODE_H
#include <stdint.h>

typedef struct {
  int64_t B, D, H, KV, hd, mlp; /* sequences, hidden size, heads, kv heads, head size, MLP size */
  int64_t past;               /* tokens already cached: the new token sits at position `past` */
  int64_t cap;                /* cache rows per sequence (>= past + 1) */
  int64_t maxPos;             /* rows of the rotary tables */
  float eps, scale;
} decode_dims;

/* Weights in TF.js layout ([in, out] projections); biases may be NULL (Llama) or set (Qwen2 q/k/v). */
typedef struct {
  const float *ln1, *wq, *wk, *wv, *bq, *bk, *bv, *wo, *ln2, *wg, *wu, *wd;
} decode_weights;

/*
 * h [B, D] -> out [B, D] through one pre-norm block. Writes the token's rotated key and its value into row `past`
 * of cacheK / cacheV [B, cap, KV*hd] (in place), then attends over rows [0, past] where keyMask [B, cap] (or NULL)
 * is non-zero. cos/sin are the rotary tables [maxPos, hd]. The token's rotary position is positions[b] when given
 * (a left-padded row's own token index, so its cached keys do not depend on the padding of the batch they were
 * computed in), else `past`. Returns 0 (nothing written) on out-of-range input.
 */
int decode_layer(const decode_dims *d, const decode_weights *w, const float *h, float *cacheK, float *cacheV,
                 const float *keyMask, const float *cos_t, const float *sin_t, const int32_t *positions, float *out);

#endif
