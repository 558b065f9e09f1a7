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

typedef uint32_t u8v __attribute__((vector_size(32)));
typedef int32_t i8v __attribute__((vector_size(32)));
/* Each lane rounded to the nearest bf16, ties to even, kept as fp32 (a NaN stays as it is): gemm.c's round_to_bf16. */
static inline v8 round_bf16(v8 v) {
  u8v u;
  memcpy(&u, &v, sizeof u);
  const u8v rounded = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
  const u8v nan = (u8v)((i8v)((u & 0x7fffffffu) > 0x7f800000u)); /* all ones where NaN */
  const u8v out = (u & nan) | (rounded & ~nan);
  v8 r;
  memcpy(&r, &out, sizeof r);
  return r;
}
static inline float round_bf16_1(float v) {
  uint32_t u;
  memcpy(&u, &v, sizeof u);
  if ((u & 0x7fffffffu) <= 0x7f800000u) u = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
  memcpy(&v, &u, sizeof v);
  return v;
}
/* W's values as multiplied: as stored, or rounded to bf16 (bf16 compute; ROUND is a compile-time constant). */
#define W_VALUE(ROUND, v) ((ROUND) ? round_bf16(v) : (v))
#define W_VALUE1(ROUND, v) ((ROUND) ? round_bf16_1(v) : (v))
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

/*
 * Vectors of 8 columns a block of x·W covers for M rows: with one or two rows a single 8-column sum per row would wait
 * on the previous multiply-add at every step (its latency, not the memory, would set the pace), so fewer rows take
 * wider blocks; never more than 8 sums in registers.
 */
#define NN_VECS(M) ((M) <= 2 ? 4 : (M) <= 4 ? 2 : 1)

/* y[:, n .. n + 8 NV) over rows k0 .. k1 of W [K, N], adding to what earlier row blocks left in y. */
static inline __attribute__((always_inline)) void nn_span(const skinny_t *s, const int M, const int ROUND, const int NV,
                                                          int64_t n, int64_t k0, int64_t k1) {
  const int64_t K = s->K, N = s->N;
  const int ahead = NV == 4 ? 64 : 32; /* floats: two blocks ahead, at least two cache lines */
  v8 acc[SKINNY_MAX_ROWS * 4];
  for (int r = 0; r < M; r++)
    for (int j = 0; j < NV; j++) {
      const float *y = s->y + r * N + n + 8 * j;
      acc[r * NV + j] = k0 > 0 ? load8(y) : s->beta != 0.0f ? splat(s->beta) * load8(y) : splat(0.0f);
    }
  const float *wk = s->w + k0 * N + n;
  for (int64_t k = k0; k < k1; k++, wk += N) {
    for (int l = 0; l < 8 * NV; l += 16)
      if (((n + l) & 15) == 0) __builtin_prefetch(wk + ahead + l, 0, 0);
    v8 wv[4];
    for (int j = 0; j < NV; j++) wv[j] = W_VALUE(ROUND, load8(wk + 8 * j));
    for (int r = 0; r < M; r++) {
      const v8 xv = splat(s->x[r * K + k]);
      for (int j = 0; j < NV; j++) acc[r * NV + j] += xv * wv[j];
    }
  }
  for (int r = 0; r < M; r++)
    for (int j = 0; j < NV; j++) store8(s->y + r * N + n + 8 * j, acc[r * NV + j]);
}

/* Column blocks [b0, b1) of 8 NV columns over x·W, W [K, N]; M fixed at compile time where inlined with a constant. */
static inline __attribute__((always_inline)) void nn_blocks(const skinny_t *s, const int M, const int ROUND, int64_t b0,
                                                            int64_t b1) {
  const int NV = NN_VECS(M);
  const int64_t K = s->K, N = s->N;
  for (int64_t k0 = 0; k0 < K; k0 += KC) {
    const int64_t k1 = k0 + KC < K ? k0 + KC : K;
    for (int64_t b = b0; b < b1; b++) {
      int64_t n = b * 8 * NV;
      if (n + 8 * NV <= N) {
        nn_span(s, M, ROUND, NV, n, k0, k1);
        continue;
      }
      /* the last block, narrower: 8 columns at a time, then one at a time */
      for (; n + 8 <= N; n += 8) nn_span(s, M, ROUND, 1, n, k0, k1);
      for (int r = 0; r < M; r++)
        for (int64_t c = n; c < N; c++) {
          float acc = k0 > 0 ? s->y[r * N + c] : s->beta != 0.0f ? s->beta * s->y[r * N + c] : 0.0f;
          for (int64_t k = k0; k < k1; k++) acc += s->x[r * K + k] * W_VALUE1(ROUND, s->w[k * N + c]);
          s->y[r * N + c] = acc;
        }
    }
  }
}

/* y[:, n0 .. n1) over x·Wᵀ, W [N, K]. */
static inline __attribute__((always_inline)) void nt_rows(const skinny_t *s, const int M, const int ROUND, int64_t n0,
                                                          int64_t n1) {
  const int64_t K = s->K, N = s->N, body = K / 8 * 8;
  for (int64_t n = n0; n < n1; n++) {
    const float *wn = s->w + n * K;
    v8 acc[SKINNY_MAX_ROWS];
    for (int r = 0; r < M; r++) acc[r] = splat(0.0f);
    for (int64_t k = 0; k < body; k += 8) {
      if ((k & 15) == 0) __builtin_prefetch(wn + NT_AHEAD * K + k, 0, 0);
      const v8 wv = W_VALUE(ROUND, load8(wn + k));
      for (int r = 0; r < M; r++) acc[r] += load8(s->x + r * K + k) * wv;
    }
    for (int r = 0; r < M; r++) {
      float sum = hsum(acc[r]);
      for (int64_t k = body; k < K; k++) sum += s->x[r * K + k] * W_VALUE1(ROUND, wn[k]);
      float *out = s->y + r * N + n;
      *out = s->beta != 0.0f ? s->beta * *out + sum : sum;
    }
  }
}

/* One function per row count (and with or without rounding W), so each keeps its partial sums in registers. */
#define PER_ROWS(F)                                                                                                    \
  F(1) F(2) F(3) F(4) F(5) F(6) F(7) F(8)
#define DEFINE(m)                                                                                                      \
  static void nn_##m(void *c, int64_t first, int64_t last) { nn_blocks((const skinny_t *)c, m, 0, first, last); }    \
  static void nt_##m(void *c, int64_t first, int64_t last) { nt_rows((const skinny_t *)c, m, 0, first, last); }      \
  static void nn_round_##m(void *c, int64_t first, int64_t last) { nn_blocks((const skinny_t *)c, m, 1, first, last); } \
  static void nt_round_##m(void *c, int64_t first, int64_t last) { nt_rows((const skinny_t *)c, m, 1, first, last); }
PER_ROWS(DEFINE)
#define ENTRY_NN(m) nn_##m,
#define ENTRY_NT(m) nt_##m,
#define ENTRY_NN_ROUND(m) nn_round_##m,
#define ENTRY_NT_ROUND(m) nt_round_##m,
static const range_fn nn_by_rows[2][SKINNY_MAX_ROWS] = {{PER_ROWS(ENTRY_NN)}, {PER_ROWS(ENTRY_NN_ROUND)}};
static const range_fn nt_by_rows[2][SKINNY_MAX_ROWS] = {{PER_ROWS(ENTRY_NT)}, {PER_ROWS(ENTRY_NT_ROUND)}};

/*
 * Below this many weights (4 MB) a product stays on the calling thread: starting one costs ~50 us, about what reading
 * that much weight on one core saves. Measured at 1 and 8 rows: 3 MB products ran as fast or slower on two threads,
 * 6 MB and up 1.3-1.8x faster.
 */
#ifndef SPLIT_VALUES
#define SPLIT_VALUES (1L << 20)
#endif

int skinny_gemm(const float *x, const float *w, int64_t M, int64_t K, int64_t N, int transW, int roundW, float beta,
                int threads, float *y) {
  if (M < 1 || M > SKINNY_MAX_ROWS) return 0;
  const skinny_t s = {x, w, M, K, N, beta, y};
  const int parts = K * N >= SPLIT_VALUES ? threads : 1, r = roundW != 0;
  const int64_t width = 8 * NN_VECS(M);
  if (transW)
    parallel_for(N, parts, nt_by_rows[r][M - 1], (void *)&s);
  else
    parallel_for((N + width - 1) / width, parts, nn_by_rows[r][M - 1], (void *)&s);
  return 1;
}
