/* bfloat16 weight storage (see bf16.h). */
#include "bf16.h"

#include <cblas.h>
#include <stdlib.h>
#include <string.h>

#include "gemm.h"
#include "parallel.h"

#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(__clang__)
#define HOT __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define HOT
#endif

HOT void bf16_encode(const float *x, int64_t n, uint16_t *out) {
  for (int64_t i = 0; i < n; i++) {
    uint32_t u;
    memcpy(&u, &x[i], 4);
    const int nan = (u & 0x7fffffffu) > 0x7f800000u;
    /* adding 0x7fff plus the lowest kept bit rounds half to even; a NaN keeps a quiet-NaN payload instead */
    const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    out[i] = (uint16_t)(nan ? ((u >> 16) | 0x40u) : rounded);
  }
}

HOT void bf16_decode(const uint16_t *x, int64_t n, float *out) {
  uint32_t *o = (uint32_t *)out;
  for (int64_t i = 0; i < n; i++) o[i] = (uint32_t)x[i] << 16;
}

/*
 * Floats of W widened per panel (16 MB). Panels run one after another, each widened and then multiplied by one
 * sgemm that OpenBLAS threads itself. Sharing panels out over our own threads, each with a one-thread sgemm, ran
 * 1.5-1.8x slower than float32 (concurrent OpenBLAS calls from several threads serialise); this way the products of
 * a 0.5B step ([512, 896] x [896, 4864] and the like) ran within 0-20% of float32's (measured while building it; the
 * whole step: bench:trainer --sizes 0.5B-lora16-bf16).
 */
#define PANEL_FLOATS (1L << 22)
/* Below this many values a panel is widened on the calling thread: starting threads (~50 us) would cost more. */
#define SPLIT_WIDEN (1L << 18)

/*
 * Scratch kept from call to call: malloc'ing 16 MB per call came back as fresh pages that had to be faulted in. The
 * kernels run on the JavaScript thread, one at a time.
 */
static float *pool;
static size_t pool_floats;

static float *scratch_pool(size_t floats) {
  if (floats > pool_floats) {
    free(pool);
    pool = (float *)malloc(sizeof(float) * floats);
    if (!pool) abort(); /* 16 MB; a machine that cannot give them cannot train either */
    pool_floats = floats;
  }
  return pool;
}

typedef struct {
  const uint16_t *w;
  int64_t ld, n0, width;
  int transW;
  float *dst;
} widen_t;

/* Rows [first, last) of one panel: whole rows n0.. of W [N, K] (transW), or columns n0.. of rows of W [K, N]. */
static void widen_rows(void *ctx, int64_t first, int64_t last) {
  const widen_t *c = (const widen_t *)ctx;
  if (c->transW) {
    bf16_decode(c->w + (c->n0 + first) * c->ld, (last - first) * c->ld, c->dst + first * c->ld);
    return;
  }
  for (int64_t k = first; k < last; k++) bf16_decode(c->w + k * c->ld + c->n0, c->width, c->dst + k * c->width);
}

/*
 * A few rows of x (sampling: one token per sequence) read W once, widening each value in registers: a panel would
 * widen all of W into memory for a handful of multiply-adds per value (a [1, 896] x [896, 4864] product took
 * 4.7 ms that way against 0.7 ms for float32).
 */
#define FEW_ROWS 8

typedef struct {
  const float *x;
  const uint16_t *w;
  int64_t M, K, N;
  float *y;
} few_t;

static inline float widen(uint16_t v) {
  const uint32_t u = (uint32_t)v << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

/* Output columns [first, last) of y = x @ W, W [K, N]: rows of W streamed once, a row of y accumulated per x row. */
HOT static void few_rows_range(void *ctx, int64_t first, int64_t last) {
  const few_t *c = (const few_t *)ctx;
  for (int64_t m = 0; m < c->M; m++) {
    float *yr = c->y + m * c->N;
    for (int64_t n = first; n < last; n++) yr[n] = 0.0f;
    for (int64_t k = 0; k < c->K; k++) {
      const float xv = c->x[m * c->K + k];
      const uint16_t *wr = c->w + k * c->N;
      for (int64_t n = first; n < last; n++) yr[n] += xv * widen(wr[n]);
    }
  }
}

/* Output columns [first, last) of y = x @ Wᵀ, W [N, K]: one dot product of length K per output. */
HOT static void few_rows_t_range(void *ctx, int64_t first, int64_t last) {
  const few_t *c = (const few_t *)ctx;
  for (int64_t n = first; n < last; n++) {
    const uint16_t *wr = c->w + n * c->K;
    for (int64_t m = 0; m < c->M; m++) {
      const float *xr = c->x + m * c->K;
      float acc = 0.0f;
#pragma omp simd reduction(+ : acc)
      for (int64_t k = 0; k < c->K; k++) acc += xr[k] * widen(wr[k]);
      c->y[m * c->N + n] = acc;
    }
  }
}

void bf16_matmul(const float *x, const uint16_t *w, int64_t M, int64_t K, int64_t N, int transW, float *y) {
  if (M == 0 || N == 0) return;
  if (K == 0) {
    memset(y, 0, sizeof(float) * (size_t)(M * N));
    return;
  }
  if (M <= FEW_ROWS) {
    few_t c = {x, w, M, K, N, y};
    parallel_for(N, K * N >= SPLIT_WIDEN ? gemm_threads() : 1, transW ? few_rows_t_range : few_rows_range, &c);
    return;
  }
  int64_t panel = PANEL_FLOATS / K;
  if (panel < 16) panel = 16;
  if (panel > N) panel = N;
  float *scratch = scratch_pool((size_t)(K * panel));
  for (int64_t n0 = 0; n0 < N; n0 += panel) {
    const int64_t nb = N - n0 < panel ? N - n0 : panel;
    widen_t c = {w, transW ? K : N, n0, nb, transW, scratch};
    parallel_for(transW ? nb : K, nb * K >= SPLIT_WIDEN ? gemm_threads() : 1, widen_rows, &c);
    if (transW) /* W [N, K]: y[:, n0:] = x @ panelᵀ, the panel [nb, K] */
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)M, (int)nb, (int)K, 1.0f, x, (int)K, scratch, (int)K, 0.0f,
                  y + n0, (int)N);
    else /* W [K, N]: y[:, n0:] = x @ panel, the panel [K, nb] */
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)M, (int)nb, (int)K, 1.0f, x, (int)K, scratch, (int)nb, 0.0f,
                  y + n0, (int)N);
  }
}

int bf16_gather_rows(const uint16_t *table, int64_t rows, int64_t D, const int32_t *ids, int64_t n, float *out) {
  for (int64_t r = 0; r < n; r++)
    if (ids[r] < 0 || ids[r] >= rows) return 0;
  for (int64_t r = 0; r < n; r++) bf16_decode(table + (int64_t)ids[r] * D, D, out + r * D);
  return 1;
}
