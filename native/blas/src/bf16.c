/* bfloat16 weight storage (see bf16.h). Compiled once per instruction set like fused.c (bf16_isa_*.c, isa.c). */
#include "bf16.h"

#include <cblas.h>
#include <stdlib.h>
#include <string.h>

#include "gemm.h"
#include "parallel.h"

void bf16_encode(const float *x, int64_t n, uint16_t *out) {
  for (int64_t i = 0; i < n; i++) {
    uint32_t u;
    memcpy(&u, &x[i], 4);
    const int nan = (u & 0x7fffffffu) > 0x7f800000u;
    /* adding 0x7fff plus the lowest kept bit rounds half to even; a NaN keeps a quiet-NaN payload instead */
    const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    out[i] = (uint16_t)(nan ? ((u >> 16) | 0x40u) : rounded);
  }
}

void bf16_decode(const uint16_t *x, int64_t n, float *out) {
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

/* A block of W [rows, cols] (its rows r0.., columns c0.., `width` of them) widened into dst [rows in block, width]. */
typedef struct {
  const uint16_t *w;
  int64_t cols, r0, c0, width;
  float *dst;
} widen_t;

static void widen_rows(void *ctx, int64_t first, int64_t last) {
  const widen_t *c = (const widen_t *)ctx;
  for (int64_t r = first; r < last; r++) bf16_decode(c->w + (c->r0 + r) * c->cols + c->c0, c->width, c->dst + r * c->width);
}

static void widen_block(const uint16_t *w, int64_t cols, int64_t r0, int64_t rows, int64_t c0, int64_t width, float *dst) {
  widen_t c = {w, cols, r0, c0, width, dst};
  parallel_for(rows, rows * width >= SPLIT_WIDEN ? gemm_threads() : 1, widen_rows, &c);
}

/*
 * Many rows of x: W in blocks of at most PANEL_FLOATS, each widened and then multiplied by one sgemm. The blocks cut
 * the longer of W's two dimensions: across the outputs (each block a slice of y's columns), or — when the shared
 * dimension K is the longer, as in a tied head's input gradient dy[512, 151936] · E — across K, summing into y, so
 * x is read once instead of once per narrow slice of outputs.
 */
static void panels(const float *x, const uint16_t *w, int64_t M, int64_t K, int64_t N, int transW, float *y) {
  const int acrossK = K > N;
  const int64_t other = acrossK ? N : K;
  const int64_t length = acrossK ? K : N;
  int64_t step = PANEL_FLOATS / other;
  if (step < 16) step = 16;
  if (step > length) step = length;
  float *scratch = scratch_pool((size_t)(other * step));
  for (int64_t s0 = 0; s0 < length; s0 += step) {
    const int64_t sb = length - s0 < step ? length - s0 : step;
    /* the block of outputs [n0, n0 + nb) and of the shared dimension [k0, k0 + kb) */
    const int64_t n0 = acrossK ? 0 : s0, nb = acrossK ? N : sb, k0 = acrossK ? s0 : 0, kb = acrossK ? sb : K;
    const float beta = acrossK && s0 > 0 ? 1.0f : 0.0f;
    if (transW) { /* W [N, K]: y[:, n0:] (+)= x[:, k0:] · blockᵀ, the block [nb, kb] */
      widen_block(w, K, n0, nb, k0, kb, scratch);
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)M, (int)nb, (int)kb, 1.0f, x + k0, (int)K, scratch, (int)kb,
                  beta, y + n0, (int)N);
    } else { /* W [K, N]: y[:, n0:] (+)= x[:, k0:] · block, the block [kb, nb] */
      widen_block(w, N, k0, kb, n0, nb, scratch);
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)M, (int)nb, (int)kb, 1.0f, x + k0, (int)K, scratch, (int)nb,
                  beta, y + n0, (int)N);
    }
  }
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
static void few_rows_range(void *ctx, int64_t first, int64_t last) {
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
static void few_rows_t_range(void *ctx, int64_t first, int64_t last) {
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
  panels(x, w, M, K, N, transW, y);
}

int bf16_gather_rows(const uint16_t *table, int64_t rows, int64_t D, const int32_t *ids, int64_t n, float *out) {
  for (int64_t r = 0; r < n; r++)
    if (ids[r] < 0 || ids[r] >= rows) return 0;
  for (int64_t r = 0; r < n; r++) bf16_decode(table + (int64_t)ids[r] * D, D, out + r * D);
  return 1;
}
