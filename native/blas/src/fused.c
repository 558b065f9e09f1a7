/*
 * Fused decoder kernels (see fused.h). Why they exist: after matMuls moved to OpenBLAS, one training step of the
 * reference decoder spent about as long in ~1,100 small TF.js ops (RMSNorm, rotary, SwiGLU, attention masking and
 * transposes, log-softmax, AdamW: each a separate pass over memory plus per-op engine overhead) as in the matMuls.
 * Loops are written so GCC vectorises them at -O3 (no calls or branches in the inner loops; exp is a polynomial).
 *
 * Compiled once per instruction set (fused_isa_*.c: baseline x86-64, AVX2 + FMA, AVX-512) and reached through the
 * dispatch in isa.c, which picks the widest the CPU has or the one ROLLOUT_LAB_ISA names.
 */
#include "fused.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bf16.h"
#include "gemm.h"
#include "parallel.h"

/*
 * exp(x) for float, vectorisable: Cody-Waite range reduction x = n ln2 + r and the Cephes expf polynomial on r
 * (relative error ~1e-7 over the clamped range). Inputs below -87.3 give ~1e-38 rather than 0, which callers that
 * need an exact zero (masked attention keys) never pass.
 */
static inline float exp_approx(float x) {
  x = x > 88.3f ? 88.3f : x;
  x = x < -87.3f ? -87.3f : x;
  /* round to nearest without a branch: adding 1.5 * 2^23 pushes the fraction out of the mantissa */
  const float fn = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  const int n = (int)fn;
  const float r = x - fn * 0.693359375f + fn * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  const int32_t bits = (n + 127) << 23;
  float scale;
  memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}

void rmsnorm_fwd(const float *x, const float *w, int64_t R, int64_t D, float eps, float *y) {
  for (int64_t r = 0; r < R; r++) {
    const float *xr = x + r * D;
    float *yr = y + r * D;
    float ss = 0.0f;
#pragma omp simd reduction(+ : ss)
    for (int64_t j = 0; j < D; j++) ss += xr[j] * xr[j];
    const float inv = 1.0f / sqrtf(ss / (float)D + eps);
    for (int64_t j = 0; j < D; j++) yr[j] = xr[j] * inv * w[j];
  }
}

void rmsnorm_bwd(const float *dy, const float *x, const float *w, int64_t R, int64_t D, float eps, float *dx, float *dw) {
  for (int64_t j = 0; j < D; j++) dw[j] = 0.0f;
  for (int64_t r = 0; r < R; r++) {
    const float *xr = x + r * D, *dyr = dy + r * D;
    float *dxr = dx + r * D;
    float ss = 0.0f, dot = 0.0f;
#pragma omp simd reduction(+ : ss, dot)
    for (int64_t j = 0; j < D; j++) {
      ss += xr[j] * xr[j];
      dot += dyr[j] * w[j] * xr[j];
    }
    const float inv = 1.0f / sqrtf(ss / (float)D + eps);
    /* d/dx_j of x_j * inv: inv * g_j - x_j * inv^3 * (sum_k g_k x_k) / D, with g = dy * w */
    const float c = inv * inv * inv * dot / (float)D;
    for (int64_t j = 0; j < D; j++) {
      dxr[j] = inv * dyr[j] * w[j] - c * xr[j];
      dw[j] += dyr[j] * xr[j] * inv;
    }
  }
}

/* One head: both halves of the rotation, operands passed separately so the compiler sees they do not overlap. */
static void rope_head(const float *restrict x1, const float *restrict x2, const float *restrict c1,
                      const float *restrict s1, const float *restrict c2, const float *restrict s2, float *restrict y1,
                      float *restrict y2, int64_t half, float sg) {
  for (int64_t i = 0; i < half; i++) {
    y1[i] = x1[i] * c1[i] - sg * x2[i] * s1[i];
    y2[i] = x2[i] * c2[i] + sg * x1[i] * s2[i];
  }
}

int rope_apply(const float *x, const int32_t *pos, const float *cos_t, const float *sin_t, int64_t maxPos, int64_t R,
               int64_t heads, int64_t hd, int sign, float *y) {
  for (int64_t r = 0; r < R; r++)
    if (pos[r] < 0 || pos[r] >= maxPos) return 0;
  const int64_t half = hd / 2;
  const float sg = sign < 0 ? -1.0f : 1.0f;
  for (int64_t r = 0; r < R; r++) {
    const float *c = cos_t + (int64_t)pos[r] * hd, *s = sin_t + (int64_t)pos[r] * hd;
    for (int64_t h = 0; h < heads; h++) {
      const int64_t at = (r * heads + h) * hd;
      rope_head(x + at, x + at + half, c, s, c + half, s + half, y + at, y + at + half, half, sg);
    }
  }
  return 1;
}

void swiglu_fwd(const float *g, const float *u, int64_t n, float *y) {
  for (int64_t i = 0; i < n; i++) y[i] = g[i] / (1.0f + exp_approx(-g[i])) * u[i];
}

void swiglu_bwd(const float *dy, const float *g, const float *u, int64_t n, float *dg, float *du) {
  for (int64_t i = 0; i < n; i++) {
    const float sig = 1.0f / (1.0f + exp_approx(-g[i]));
    const float silu = g[i] * sig;
    du[i] = dy[i] * silu;
    /* d silu / dg = sig * (1 + g * (1 - sig)) */
    dg[i] = dy[i] * u[i] * sig * (1.0f + g[i] * (1.0f - sig));
  }
}

typedef struct {
  const float *q, *k, *v, *keyMask, *dout, *p;
  float *out, *pw, *dq, *dk, *dv;
  int64_t B, T, Tk, H, KV, hd, past;
  float scale;
} attn_t;

/* Softmax of one score row over its visible keys (causal limit, key padding); others become exact zeros. */
static void softmax_row(float *row, int64_t lim, int64_t Tk, const float *mask) {
  float max = -INFINITY;
#pragma omp simd reduction(max : max)
  for (int64_t j = 0; j < lim; j++) {
    const float s = (!mask || mask[j] != 0.0f) ? row[j] : -INFINITY;
    max = s > max ? s : max;
  }
  if (max == -INFINITY) { /* nothing visible (a padding query): output zeros */
    memset(row, 0, (size_t)Tk * sizeof(float));
    return;
  }
  float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
  for (int64_t j = 0; j < lim; j++) {
    const float e = (!mask || mask[j] != 0.0f) ? exp_approx(row[j] - max) : 0.0f;
    row[j] = e;
    sum += e;
  }
  const float inv = 1.0f / sum;
  for (int64_t j = 0; j < lim; j++) row[j] *= inv;
  for (int64_t j = lim; j < Tk; j++) row[j] = 0.0f;
}

static void attn_fwd_range(void *ctx, int64_t first, int64_t last) {
  const attn_t *a = (const attn_t *)ctx;
  const int64_t g = a->H / a->KV, ldq = a->H * a->hd, ldk = a->KV * a->hd;
  for (int64_t u = first; u < last; u++) {
    const int64_t b = u / a->H, h = u % a->H, kvh = h / g;
    const float *Q = a->q + b * a->T * ldq + h * a->hd;
    const float *K = a->k + b * a->Tk * ldk + kvh * a->hd;
    const float *V = a->v + b * a->Tk * ldk + kvh * a->hd;
    float *P = a->pw + u * a->T * a->Tk;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)a->T, (int)a->Tk, (int)a->hd, a->scale, Q, (int)ldq, K,
                (int)ldk, 0.0f, P, (int)a->Tk);
    const float *mask = a->keyMask ? a->keyMask + b * a->Tk : NULL;
    for (int64_t i = 0; i < a->T; i++) {
      const int64_t lim = a->past + i + 1 < a->Tk ? a->past + i + 1 : a->Tk;
      softmax_row(P + i * a->Tk, lim, a->Tk, mask);
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)a->T, (int)a->hd, (int)a->Tk, 1.0f, P, (int)a->Tk, V,
                (int)ldk, 0.0f, a->out + b * a->T * ldq + h * a->hd, (int)ldq);
  }
}

/* Heads are worth spreading over threads only when there is enough arithmetic to repay starting them. */
static int attn_threads(int64_t units, int64_t T, int64_t Tk, int64_t hd) {
  return units * T * Tk * hd >= (1L << 21) ? gemm_threads() : 1;
}

void attn_fwd(const float *q, const float *k, const float *v, const float *keyMask, int64_t B, int64_t T, int64_t Tk,
              int64_t H, int64_t KV, int64_t hd, int64_t past, float scale, float *out, float *p) {
  attn_t a = {q, k, v, keyMask, NULL, NULL, out, p, NULL, NULL, NULL, B, T, Tk, H, KV, hd, past, scale};
  parallel_for(B * H, attn_threads(B * H, T, Tk, hd), attn_fwd_range, &a);
}

/* One unit = one (sequence, kv head): the g query heads sharing it accumulate into the same dk / dv rows. */
static void attn_bwd_range(void *ctx, int64_t first, int64_t last) {
  const attn_t *a = (const attn_t *)ctx;
  const int64_t g = a->H / a->KV, ldq = a->H * a->hd, ldk = a->KV * a->hd, T = a->T, Tk = a->Tk;
  float *dS = (float *)malloc((size_t)(T * Tk) * sizeof(float));
  if (!dS) abort(); /* out of memory inside a kernel: nothing sensible to return to JS */
  for (int64_t u = first; u < last; u++) {
    const int64_t b = u / a->KV, kvh = u % a->KV;
    const float *K = a->k + b * Tk * ldk + kvh * a->hd;
    const float *V = a->v + b * Tk * ldk + kvh * a->hd;
    float *dK = a->dk + b * Tk * ldk + kvh * a->hd;
    float *dV = a->dv + b * Tk * ldk + kvh * a->hd;
    for (int64_t h = kvh * g; h < (kvh + 1) * g; h++) {
      const float beta = h == kvh * g ? 0.0f : 1.0f;
      const float *Q = a->q + b * T * ldq + h * a->hd;
      const float *dO = a->dout + b * T * ldq + h * a->hd;
      const float *P = a->p + (b * a->H + h) * T * Tk;
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)T, (int)Tk, (int)a->hd, 1.0f, dO, (int)ldq, V, (int)ldk,
                  0.0f, dS, (int)Tk);
      /* softmax backward: dS = P * (dP - rowsum(P * dP)), times the score scale */
      for (int64_t i = 0; i < T; i++) {
        const float *pr = P + i * Tk;
        float *dr = dS + i * Tk;
        float dot = 0.0f;
#pragma omp simd reduction(+ : dot)
        for (int64_t j = 0; j < Tk; j++) dot += pr[j] * dr[j];
        for (int64_t j = 0; j < Tk; j++) dr[j] = pr[j] * (dr[j] - dot) * a->scale;
      }
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)T, (int)a->hd, (int)Tk, 1.0f, dS, (int)Tk, K, (int)ldk,
                  0.0f, a->dq + b * T * ldq + h * a->hd, (int)ldq);
      cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)Tk, (int)a->hd, (int)T, 1.0f, dS, (int)Tk, Q, (int)ldq,
                  beta, dK, (int)ldk);
      cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)Tk, (int)a->hd, (int)T, 1.0f, P, (int)Tk, dO, (int)ldq,
                  beta, dV, (int)ldk);
    }
  }
  free(dS);
}

void attn_bwd(const float *dout, const float *q, const float *k, const float *v, const float *p, int64_t B, int64_t T,
              int64_t Tk, int64_t H, int64_t KV, int64_t hd, float scale, float *dq, float *dk, float *dv) {
  attn_t a = {q, k, v, NULL, dout, p, NULL, NULL, dq, dk, dv, B, T, Tk, H, KV, hd, 0, scale};
  parallel_for(B * KV, attn_threads(B * H, T, Tk, hd), attn_bwd_range, &a);
}

/* Softmax statistics of one row of logits: its max, sum of exp(z - max), and sum of exp(z - max) * (z - max). */
typedef struct {
  float max, sum, sumZ;
} row_stats;

static inline row_stats softmax_stats(const float *z, int64_t V, float *exps) {
  row_stats st = {z[0], 0.0f, 0.0f};
  float max = z[0];
#pragma omp simd reduction(max : max)
  for (int64_t j = 1; j < V; j++) max = z[j] > max ? z[j] : max;
  float sum = 0.0f, sumZ = 0.0f;
  if (exps) { /* two copies of the loop: a conditional store would keep it from vectorising */
#pragma omp simd reduction(+ : sum, sumZ)
    for (int64_t j = 0; j < V; j++) {
      const float e = exp_approx(z[j] - max);
      exps[j] = e;
      sum += e;
      sumZ += e * (z[j] - max);
    }
  } else {
#pragma omp simd reduction(+ : sum, sumZ)
    for (int64_t j = 0; j < V; j++) {
      const float e = exp_approx(z[j] - max);
      sum += e;
      sumZ += e * (z[j] - max);
    }
  }
  st.max = max;
  st.sum = sum;
  st.sumZ = sumZ;
  return st;
}

int logprob_fwd(const float *logits, const int32_t *target, int64_t N, int64_t V, float *out) {
  for (int64_t r = 0; r < N; r++)
    if (target[r] < 0 || target[r] >= V) return 0;
  for (int64_t r = 0; r < N; r++) {
    const float *z = logits + r * V;
    const row_stats st = softmax_stats(z, V, NULL);
    const float logZs = logf(st.sum); /* logZ - max */
    out[r] = z[target[r]] - st.max - logZs;
    /* H = -sum p (z - logZ) = logZ - sum p z, both shifted by max for precision */
    out[N + r] = logZs - st.sumZ / st.sum;
  }
  return 1;
}

void logprob_bwd(const float *logits, const int32_t *target, const float *dout, int64_t N, int64_t V, float *dlogits) {
  for (int64_t r = 0; r < N; r++) {
    const float *z = logits + r * V;
    float *d = dlogits + r * V;
    const float dlp = dout[r], dH = dout[N + r];
    const row_stats st = softmax_stats(z, V, d); /* d holds exp(z - max) for now */
    const float logZs = logf(st.sum);
    const float H = logZs - st.sumZ / st.sum;
    const float inv = 1.0f / st.sum;
    /* d log p_t / dz_j = [j = t] - p_j;  dH / dz_j = -p_j (log p_j + H) */
    for (int64_t j = 0; j < V; j++) {
      const float pj = d[j] * inv;
      d[j] = -dlp * pj - dH * pj * ((z[j] - st.max - logZs) + H);
    }
    d[target[r]] += dlp;
  }
}

/* AdamW's constants as the loops use them: copied out of adamw_params so no store in the loop can alias them (which
   would block vectorising), with the bias corrections inverted once. */
typedef struct {
  float b1, b2, clip, ibc1, ibc2, lr, eps, wd;
} adamw_consts;

static inline adamw_consts adamw_consts_of(const adamw_params *hp) {
  return (adamw_consts){hp->b1, hp->b2, hp->clip, 1.0f / hp->bc1, 1.0f / hp->bc2, hp->lr, hp->eps, hp->wd};
}

/* One element: stores the new moments in *m2 and *v2 and returns the new parameter (all inputs read first, so the
   outputs may be the inputs' own places). */
static inline float adamw_element(float p, float m, float v, float g, adamw_consts k, float *m2, float *v2) {
  const float gi = g * k.clip;
  const float mi = k.b1 * m + (1.0f - k.b1) * gi;
  const float vi = k.b2 * v + (1.0f - k.b2) * gi * gi;
  *m2 = mi;
  *v2 = vi;
  return p - k.lr * (mi * k.ibc1 / (sqrtf(vi * k.ibc2) + k.eps) + k.wd * p);
}

void adamw_step(const float *restrict p, const float *restrict m, const float *restrict v, const float *restrict g,
                    int64_t n, const adamw_params *hp, float *restrict p2, float *restrict m2, float *restrict v2) {
  const adamw_consts k = adamw_consts_of(hp);
  for (int64_t i = 0; i < n; i++) p2[i] = adamw_element(p[i], m[i], v[i], g[i], k, &m2[i], &v2[i]);
}

/*
 * The same step in place: p, m and v are read and overwritten element by element (distinct buffers, so `restrict`
 * holds). Out of place, a step of a 0.5B model wrote ~6 GB of fresh buffers whose page faults cost more than the
 * arithmetic; in place it touches only memory already mapped. Large tensors are split over two threads: the loop
 * is memory-bound and one core cannot saturate the bandwidth.
 */
typedef struct {
  float *p, *m, *v;
  const float *g;
  adamw_consts k;
} adamw_inplace_job;

static void adamw_inplace_range(void *ctx, int64_t first, int64_t last) {
  const adamw_inplace_job *j = (const adamw_inplace_job *)ctx;
  float *restrict p = j->p, *restrict m = j->m, *restrict v = j->v;
  const float *restrict g = j->g;
  const adamw_consts k = j->k;
  for (int64_t i = first; i < last; i++) p[i] = adamw_element(p[i], m[i], v[i], g[i], k, &m[i], &v[i]);
}

/* Below this many values a second thread costs more to start than it saves. */
#define ADAMW_THREADED_MIN (1L << 18)

void adamw_step_inplace(float *p, float *m, float *v, const float *g, int64_t n, const adamw_params *hp) {
  adamw_inplace_job job = {p, m, v, g, adamw_consts_of(hp)};
  parallel_for(n, n >= ADAMW_THREADED_MIN ? gemm_threads() : 1, adamw_inplace_range, &job);
}

/*
 * The in-place step that also refreshes the weights' bf16 copy (policy.compute "bf16"): each block of new weights is
 * rounded while it is still in L1, instead of a separate pass re-reading all of them before the next forward.
 */
typedef struct {
  adamw_inplace_job step;
  uint16_t *p16;
} adamw_inplace_bf16_job;

/* Values per block: 16 KB of weights, a small part of L1 beside the moments' lines in flight. */
#define ADAMW_BF16_BLOCK 4096

static void adamw_inplace_bf16_range(void *ctx, int64_t first, int64_t last) {
  const adamw_inplace_bf16_job *j = (const adamw_inplace_bf16_job *)ctx;
  for (int64_t b = first; b < last; b += ADAMW_BF16_BLOCK) {
    const int64_t e = b + ADAMW_BF16_BLOCK < last ? b + ADAMW_BF16_BLOCK : last;
    adamw_inplace_range((void *)&j->step, b, e);
    bf16_encode(j->step.p + b, e - b, j->p16 + b);
  }
}

void adamw_step_inplace_bf16(float *p, float *m, float *v, const float *g, int64_t n, const adamw_params *hp,
                             uint16_t *p16) {
  adamw_inplace_bf16_job job = {{p, m, v, g, adamw_consts_of(hp)}, p16};
  parallel_for(n, n >= ADAMW_THREADED_MIN ? gemm_threads() : 1, adamw_inplace_bf16_range, &job);
}

static inline float m_decode(int8_t c, float scale) {
  const float r = (float)c / 127.0f;
  return (r < 0 ? -r * r : r * r) * scale;
}
static inline float v_decode(uint8_t c, float scale) {
  const float r = (float)c / 255.0f, r2 = r * r;
  return r2 * r2 * scale;
}

/* Encodes one block of moments (n <= ADAMW8_BLOCK values) with its own scales. */
static void encode_block(const float *m, const float *v, int64_t n, int8_t *mq, float *ms, uint8_t *vq, float *vs) {
  float mmax = 0.0f, vmax = 0.0f;
  for (int64_t i = 0; i < n; i++) {
    const float a = fabsf(m[i]);
    if (a > mmax) mmax = a;
    if (v[i] > vmax) vmax = v[i];
  }
  *ms = mmax;
  *vs = vmax;
  const float im = mmax > 0 ? 1.0f / mmax : 0.0f, iv = vmax > 0 ? 1.0f / vmax : 0.0f;
  for (int64_t i = 0; i < n; i++) {
    const float q = 127.0f * sqrtf(fabsf(m[i]) * im);
    const int c = (int)(q + 0.5f);
    mq[i] = (int8_t)(m[i] < 0 ? -c : c);
    int cv = (int)(255.0f * sqrtf(sqrtf(v[i] * iv)) + 0.5f);
    if (cv == 0 && v[i] > 0) cv = 1; /* an under-estimated v would enlarge the step: never round it to 0 */
    vq[i] = (uint8_t)cv;
  }
}

void adamw8_decode(const int8_t *mq, const float *ms, const uint8_t *vq, const float *vs, int64_t n, float *m, float *v) {
  for (int64_t i = 0; i < n; i++) {
    m[i] = m_decode(mq[i], ms[i / ADAMW8_BLOCK]);
    v[i] = v_decode(vq[i], vs[i / ADAMW8_BLOCK]);
  }
}

void adamw8_encode(const float *m, const float *v, int64_t n, int8_t *mq, float *ms, uint8_t *vq, float *vs) {
  for (int64_t b = 0; b * ADAMW8_BLOCK < n; b++) {
    const int64_t at = b * ADAMW8_BLOCK, len = n - at < ADAMW8_BLOCK ? n - at : ADAMW8_BLOCK;
    encode_block(m + at, v + at, len, mq + at, ms + b, vq + at, vs + b);
  }
}

void adamw8_step(const float *p, const float *g, int64_t n, const adamw_params *hp, const int8_t *mq, const float *ms,
                     const uint8_t *vq, const float *vs, float *p2, int8_t *mq2, float *ms2, uint8_t *vq2, float *vs2) {
  const adamw_consts k = adamw_consts_of(hp);
  float m[ADAMW8_BLOCK], v[ADAMW8_BLOCK];
  for (int64_t b = 0; b * ADAMW8_BLOCK < n; b++) {
    const int64_t at = b * ADAMW8_BLOCK, len = n - at < ADAMW8_BLOCK ? n - at : ADAMW8_BLOCK;
    for (int64_t j = 0; j < len; j++) {
      const int64_t i = at + j;
      p2[i] = adamw_element(p[i], m_decode(mq[i], ms[b]), v_decode(vq[i], vs[b]), g[i], k, &m[j], &v[j]);
    }
    encode_block(m, v, len, mq2 + at, ms2 + b, vq2 + at, vs2 + b);
  }
}

double sum_squares(const float *x, int64_t n) {
  /* float lanes over short blocks, double across blocks: vectorised, and exact enough for a clipping norm */
  double total = 0.0;
  for (int64_t i = 0; i < n; i += 4096) {
    const int64_t end = i + 4096 < n ? i + 4096 : n;
    float s = 0.0f;
#pragma omp simd reduction(+ : s)
    for (int64_t j = i; j < end; j++) s += x[j] * x[j];
    total += s;
  }
  return total;
}
