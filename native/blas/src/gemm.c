/*
 * Batched GEMM on OpenBLAS. A 2-D matMul of the reference model ([2048,128]x[128,512]) is one cblas_sgemm that
 * OpenBLAS threads itself. Attention's many small products (64 x [128,32]x[32,128]) are too small for OpenBLAS to
 * thread well, so for those a single call is made per matrix on one BLAS thread and the batch is shared out over
 * our own worker threads instead (parallel.c).
 */
#include "gemm.h"

#include <cblas.h>

#include "gemm_bf16.h"
#include "parallel.h"

typedef struct {
  int ta, tb, M, N, K;
  const float *A, *B;
  size_t strideA, strideB;
  float *out;
} batch_t;

static void run_range(void *ctx, int64_t first, int64_t last) {
  const batch_t *s = (const batch_t *)ctx;
  const int lda = s->ta ? s->M : s->K;
  const int ldb = s->tb ? s->K : s->N;
  for (int64_t i = first; i < last; i++) {
    cblas_sgemm(CblasRowMajor, s->ta ? CblasTrans : CblasNoTrans, s->tb ? CblasTrans : CblasNoTrans, s->M, s->N, s->K,
                1.0f, s->A + (size_t)i * s->strideA, lda, s->B + (size_t)i * s->strideB, ldb, 0.0f,
                s->out + (size_t)i * s->M * s->N, s->N);
  }
}

static int threads = 0; /* 0 = not read yet */

int gemm_threads(void) {
  if (threads == 0) threads = openblas_get_num_threads();
  return threads;
}

void gemm_set_threads(int n) {
  if (n < 1) n = 1;
  threads = n;
  openblas_set_num_threads(n);
}

const char *gemm_config(void) { return openblas_get_config(); }

/* Below this many multiply-adds per matrix, splitting the batch over threads beats OpenBLAS's own threading... */
#define SMALL_GEMM_FLOPS (1L << 22)
/* ...but only when the whole batch is big enough to repay starting threads (~50 us each): KV-cache decoding runs
   batches of [1,32]x[32,T] products where a thread start costs more than the arithmetic. */
#define MIN_SPLIT_FLOPS (1L << 22)

static int compute_mode = GEMM_COMPUTE_FP32;

int gemm_set_compute(int mode) {
  if (mode == GEMM_COMPUTE_BF16 && !gemm_bf16_available()) return 0;
  compute_mode = mode == GEMM_COMPUTE_BF16 ? GEMM_COMPUTE_BF16 : GEMM_COMPUTE_FP32;
  return 1;
}

int gemm_compute(void) { return compute_mode; }

void gemm_batched(int batch, int ta, int tb, int M, int N, int K, const float *A, size_t strideA, const float *B,
                  size_t strideB, float *out) {
  if (compute_mode == GEMM_COMPUTE_BF16 && gemm_bf16_batched(batch, ta, tb, M, N, K, A, strideA, B, strideB, out)) return;
  batch_t all = {ta, tb, M, N, K, A, B, strideA, strideB, out};
  const long work = (long)M * N * K;
  const int split = batch >= 2 && work < SMALL_GEMM_FLOPS && work * batch >= MIN_SPLIT_FLOPS;
  parallel_for(batch, split ? gemm_threads() : 1, run_range, &all);
}
