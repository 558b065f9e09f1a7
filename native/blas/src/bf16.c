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

/* Floats of W widened per panel: 1M (4 MB) stays in L2/L3 next to the operand sgemm reads it with. */
#define PANEL_FLOATS (1L << 20)

typedef struct {
  const float *x;
  const uint16_t *w;
  int64_t M, K, N, panel;
  int transW;
  float *y;
} matmul_t;

/* Output columns [first*panel, last*panel): widen each panel of W, then one sgemm into y's columns. */
static void matmul_range(void *ctx, int64_t first, int64_t last) {
  const matmul_t *s = (const matmul_t *)ctx;
  float *scratch = (float *)malloc(sizeof(float) * (size_t)(s->K * s->panel));
  if (!scratch) abort(); /* 4 MB; a machine that cannot give it cannot train either */
  for (int64_t p = first; p < last; p++) {
    const int64_t n0 = p * s->panel;
    const int64_t nb = s->N - n0 < s->panel ? s->N - n0 : s->panel;
    if (s->transW) {
      /* W [N, K]: rows n0.. are contiguous; y[:, n0:] = x @ panelᵀ */
      bf16_decode(s->w + n0 * s->K, nb * s->K, scratch);
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)s->M, (int)nb, (int)s->K, 1.0f, s->x, (int)s->K, scratch,
                  (int)s->K, 0.0f, s->y + n0, (int)s->N);
    } else {
      /* W [K, N]: columns n0.. of every row, gathered into a [K, nb] panel */
      for (int64_t k = 0; k < s->K; k++) bf16_decode(s->w + k * s->N + n0, nb, scratch + k * nb);
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)s->M, (int)nb, (int)s->K, 1.0f, s->x, (int)s->K, scratch,
                  (int)nb, 0.0f, s->y + n0, (int)s->N);
    }
  }
  free(scratch);
}

void bf16_matmul(const float *x, const uint16_t *w, int64_t M, int64_t K, int64_t N, int transW, float *y) {
  if (M == 0 || N == 0) return;
  if (K == 0) {
    memset(y, 0, sizeof(float) * (size_t)(M * N));
    return;
  }
  /* Panels are shared out over our threads (each widens its own and runs a one-thread sgemm), so widening runs in
     parallel too; at least one panel per thread, at most PANEL_FLOATS each, never narrower than 16 columns. */
  const int threads = gemm_threads();
  int64_t panel = PANEL_FLOATS / K;
  const int64_t per_thread = (N + threads - 1) / threads;
  if (panel > per_thread) panel = per_thread;
  if (panel < 16) panel = 16;
  const int64_t panels = (N + panel - 1) / panel;
  matmul_t s = {x, w, M, K, N, panel, transW, y};
  parallel_for(panels, threads, matmul_range, &s);
}

int bf16_gather_rows(const uint16_t *table, int64_t rows, int64_t D, const int32_t *ids, int64_t n, float *out) {
  for (int64_t r = 0; r < n; r++)
    if (ids[r] < 0 || ids[r] >= rows) return 0;
  for (int64_t r = 0; r < n; r++) bf16_decode(table + (int64_t)ids[r] * D, D, out + r * D);
  return 1;
}
