/*
 * Few-row products (skinny.h). Written with GCC's generic 8-float vectors, which each instruction-set copy lowers to
 * its own registers (two SSE registers on baseline, one AVX register on AVX2 and AVX-512).
 *
 * W [K, N]: for a block of KC rows of W, each 8-column block keeps the M rows' partial sums in registers while it walks
 * down the rows; the next 8 columns use the other half of the same cache lines. Blocking K keeps the rows a block
 * touches within the TLB's reach (a row of a [896, 4864] weight is 19 KB apart from the next), and the line two blocks
 * ahead is prefetched, since 256 rows read side by side are more streams than the hardware prefetcher follows.
 * W [N, K]: each row of W is one contiguous run, read once and multiplied with every x row while in L1.
 */
#include "skinny.h"

#include <string.h>

#include "parallel.h"

typedef float v8 __attribute__((vector_size(32)));

static inline v8 load8(const float *p) {
  v8 v;
  memcpy(&v, p, sizeof v);
  return v;
}
static inline void store8(float *p, v8 v) { memcpy(p, &v, sizeof v); }
static inline v8 splat(float a) { return (v8){a, a, a, a, a, a, a, a}; }
static inline float hsum(v8 v) {
  return ((v[0] + v[4]) + (v[1] + v[5])) + ((v[2] + v[6]) + (v[3] + v[7]));
}

#define KC 256
/* W [N, K]: rows ahead fetched past the caches' usual path (prefetchnta) so the stream does not push x out of L1. */
#ifndef NT_AHEAD
#define NT_AHEAD 2
#endif

typedef struct {
  const float *x, *w;
  int64_t M, K, N;
  float beta;
  float *y;
} skinny_t;

/* y[:, 8b .. 8b+8) for blocks [b0, b1) over x·W, W [K, N]; M fixed at compile time where inlined with a constant. */
static inline __attribute__((always_inline)) void nn_blocks(const skinny_t *s, const int M, int64_t b0, int64_t b1) {
  const int64_t K = s->K, N = s->N, full = N / 8;
  for (int64_t k0 = 0; k0 < K; k0 += KC) {
    const int64_t k1 = k0 + KC < K ? k0 + KC : K;
    for (int64_t b = b0; b < b1; b++) {
      const int64_t n = b * 8;
      if (b < full) {
        v8 acc[SKINNY_MAX_ROWS];
        for (int r = 0; r < M; r++)
          acc[r] = k0 > 0 ? load8(s->y + r * N + n) : s->beta != 0.0f ? splat(s->beta) * load8(s->y + r * N + n) : splat(0.0f);
        const float *wk = s->w + k0 * N + n;
        for (int64_t k = k0; k < k1; k++, wk += N) {
          if ((n & 15) == 0) __builtin_prefetch(wk + 32, 0, 0);
          const v8 wv = load8(wk);
          for (int r = 0; r < M; r++) acc[r] += splat(s->x[r * K + k]) * wv;
        }
        for (int r = 0; r < M; r++) store8(s->y + r * N + n, acc[r]);
      } else { /* the last columns when N is not a multiple of 8 */
        for (int r = 0; r < M; r++)
          for (int64_t c = n; c < N; c++) {
            float acc = k0 > 0 ? s->y[r * N + c] : s->beta != 0.0f ? s->beta * s->y[r * N + c] : 0.0f;
            for (int64_t k = k0; k < k1; k++) acc += s->x[r * K + k] * s->w[k * N + c];
            s->y[r * N + c] = acc;
          }
      }
    }
  }
}

/* y[:, n0 .. n1) over x·Wᵀ, W [N, K]. */
static inline __attribute__((always_inline)) void nt_rows(const skinny_t *s, const int M, int64_t n0, int64_t n1) {
  const int64_t K = s->K, N = s->N, body = K / 8 * 8;
  for (int64_t n = n0; n < n1; n++) {
    const float *wn = s->w + n * K;
    v8 acc[SKINNY_MAX_ROWS];
    for (int r = 0; r < M; r++) acc[r] = splat(0.0f);
    for (int64_t k = 0; k < body; k += 8) {
      if ((k & 15) == 0) __builtin_prefetch(wn + NT_AHEAD * K + k, 0, 0);
      const v8 wv = load8(wn + k);
      for (int r = 0; r < M; r++) acc[r] += load8(s->x + r * K + k) * wv;
    }
    for (int r = 0; r < M; r++) {
      float sum = hsum(acc[r]);
      for (int64_t k = body; k < K; k++) sum += s->x[r * K + k] * wn[k];
      float *out = s->y + r * N + n;
      *out = s->beta != 0.0f ? s->beta * *out + sum : sum;
    }
  }
}

/* One function per row count, so each keeps its partial sums in registers. */
#define PER_ROWS(F)                                                                                                    \
  F(1) F(2) F(3) F(4) F(5) F(6) F(7) F(8)
#define DEFINE(m)                                                                                                      \
  static void nn_##m(void *ctx, int64_t first, int64_t last) { nn_blocks((const skinny_t *)ctx, m, first, last); }   \
  static void nt_##m(void *ctx, int64_t first, int64_t last) { nt_rows((const skinny_t *)ctx, m, first, last); }
PER_ROWS(DEFINE)
#define ENTRY_NN(m) nn_##m,
#define ENTRY_NT(m) nt_##m,
static const range_fn nn_by_rows[SKINNY_MAX_ROWS] = {PER_ROWS(ENTRY_NN)};
static const range_fn nt_by_rows[SKINNY_MAX_ROWS] = {PER_ROWS(ENTRY_NT)};

/* Below this many multiply-adds a product stays on the calling thread: starting one costs ~50 us. */
#define SPLIT_MACS (1L << 23)

int skinny_gemm(const float *x, const float *w, int64_t M, int64_t K, int64_t N, int transW, float beta, int threads,
                float *y) {
  if (M < 1 || M > SKINNY_MAX_ROWS) return 0;
  const skinny_t s = {x, w, M, K, N, beta, y};
  const int parts = M * K * N >= SPLIT_MACS ? threads : 1;
  if (transW)
    parallel_for(N, parts, nt_by_rows[M - 1], (void *)&s);
  else
    parallel_for((N + 7) / 8, parts, nn_by_rows[M - 1], (void *)&s);
  return 1;
}
