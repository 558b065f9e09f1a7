#include "decode.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fused.h"
#include "gemm.h"
#include "skinny.h"

/* y[B, N] = x[B, K] @ w[K, N] + beta y, row-major: a batch of up to 8 on the few-row kernel (skinny.h says why). */
static void product(const float *x, const float *w, int64_t B, int64_t K, int64_t N, float beta, float *y) {
  if (few_row_kernel_enabled() && skinny_gemm(x, w, B, K, N, 0, 0, beta, gemm_threads(), y)) return;
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)B, (int)N, (int)K, 1.0f, x, (int)K, w, (int)N, beta, y,
              (int)N);
}

/* y[B, N] = x[B, K] @ w[K, N] (+ bias). */
static void linear(const float *x, const float *w, const float *bias, int64_t B, int64_t K, int64_t N, float *y) {
  if (bias)
    for (int64_t b = 0; b < B; b++) memcpy(y + b * N, bias, (size_t)N * sizeof(float));
  product(x, w, B, K, N, bias ? 1.0f : 0.0f, y);
}

/* attn[b, h] = softmax over visible cached keys of (q . k) * scale, applied to the cached values. */
static void attend(const decode_dims *d, const float *q, const float *cacheK, const float *cacheV, const float *keyMask,
                   float *scores, float *attn) {
  const int64_t g = d->H / d->KV, ldk = d->KV * d->hd, Tk = d->past + 1;
  for (int64_t b = 0; b < d->B; b++) {
    const float *mask = keyMask ? keyMask + b * d->cap : NULL;
    for (int64_t h = 0; h < d->H; h++) {
      const float *K = cacheK + b * d->cap * ldk + (h / g) * d->hd;
      const float *V = cacheV + b * d->cap * ldk + (h / g) * d->hd;
      cblas_sgemv(CblasRowMajor, CblasNoTrans, (int)Tk, (int)d->hd, d->scale, K, (int)ldk, q + (b * d->H + h) * d->hd, 1,
                  0.0f, scores, 1);
      float max = -INFINITY;
      for (int64_t j = 0; j < Tk; j++)
        if ((!mask || mask[j] != 0.0f) && scores[j] > max) max = scores[j];
      float *o = attn + (b * d->H + h) * d->hd;
      if (max == -INFINITY) { /* nothing visible: zeros, as the training kernel does */
        memset(o, 0, (size_t)d->hd * sizeof(float));
        continue;
      }
      float sum = 0.0f;
      for (int64_t j = 0; j < Tk; j++) {
        scores[j] = (!mask || mask[j] != 0.0f) ? expf(scores[j] - max) : 0.0f;
        sum += scores[j];
      }
      cblas_sgemv(CblasRowMajor, CblasTrans, (int)Tk, (int)d->hd, 1.0f / sum, V, (int)ldk, scores, 1, 0.0f, o, 1);
    }
  }
}

int decode_layer(const decode_dims *d, const decode_weights *w, const float *h, float *cacheK, float *cacheV,
                 const float *keyMask, const float *cos_t, const float *sin_t, const int32_t *positions, float *out) {
  const int64_t B = d->B, D = d->D, qw = d->H * d->hd, kw = d->KV * d->hd;
  if (d->past >= d->cap || d->past >= d->maxPos || d->H % d->KV != 0) return 0;
  if (positions)
    for (int64_t b = 0; b < B; b++)
      if (positions[b] < 0 || positions[b] >= d->maxPos) return 0;
  /* one scratch block: xn [B,D] q,qr [B,qw] k,kr,v [B,kw] attn [B,qw] gate,up [B,I] scores [past+1] */
  const size_t n = (size_t)(B * D + 3 * B * qw + 3 * B * kw + 2 * B * d->mlp + d->past + 1);
  float *buf = (float *)malloc(n * sizeof(float));
  if (!buf) return 0;
  float *xn = buf, *q = xn + B * D, *qr = q + B * qw, *k = qr + B * qw, *kr = k + B * kw, *v = kr + B * kw,
        *attn = v + B * kw, *gate = attn + B * qw, *up = gate + B * d->mlp, *scores = up + B * d->mlp;

  rmsnorm_fwd(h, w->ln1, B, D, d->eps, xn);
  linear(xn, w->wq, w->bq, B, D, qw, q);
  linear(xn, w->wk, w->bk, B, D, kw, k);
  linear(xn, w->wv, w->bv, B, D, kw, v);
  int32_t *pos = (int32_t *)malloc((size_t)B * sizeof(int32_t));
  if (!pos) {
    free(buf);
    return 0;
  }
  for (int64_t b = 0; b < B; b++) pos[b] = positions ? positions[b] : (int32_t)d->past;
  /* rotary needs separate input and output buffers */
  rope_apply(q, pos, cos_t, sin_t, d->maxPos, B, d->H, d->hd, 1, qr);
  rope_apply(k, pos, cos_t, sin_t, d->maxPos, B, d->KV, d->hd, 1, kr);
  free(pos);
  for (int64_t b = 0; b < B; b++) {
    memcpy(cacheK + (b * d->cap + d->past) * kw, kr + b * kw, (size_t)kw * sizeof(float));
    memcpy(cacheV + (b * d->cap + d->past) * kw, v + b * kw, (size_t)kw * sizeof(float));
  }
  attend(d, qr, cacheK, cacheV, keyMask, scores, attn);

  /* residuals: out = h + attn @ wo, then out += swiglu(hn @ wg, hn @ wu) @ wd */
  memcpy(out, h, (size_t)(B * D) * sizeof(float));
  product(attn, w->wo, B, qw, D, 1.0f, out);
  rmsnorm_fwd(out, w->ln2, B, D, d->eps, xn);
  linear(xn, w->wg, NULL, B, D, d->mlp, gate);
  linear(xn, w->wu, NULL, B, D, d->mlp, up);
  swiglu_fwd(gate, up, B * d->mlp, gate);
  product(gate, w->wd, B, d->mlp, D, 1.0f, out);
  free(buf);
  return 1;
}
