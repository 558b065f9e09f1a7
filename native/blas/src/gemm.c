/*
 * Batched GEMM on OpenBLAS (or, for large fp32 products where it is faster, oneDNN: "fp32 library" below). A 2-D matMul of the reference model ([2048,128]x[128,512]) is one cblas_sgemm that
 * OpenBLAS threads itself. Attention's many small products (64 x [128,32]x[32,128]) are too small for OpenBLAS to
 * thread well, so for those a single call is made per matrix on one BLAS thread and the batch is shared out over
 * our own worker threads instead (parallel.c).
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime under -std=c11 */
#include "gemm.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cblas.h>

#include "gemm_onednn.h"
#include "parallel.h"
#include "skinny.h"

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

/*
 * fp32 library: which library multiplies the fp32 products of at least SMALL_GEMM_FLOPS per matrix (smaller ones,
 * attention's batches and decoding, stay on OpenBLAS and skinny.c). OpenBLAS unless gemm_set_fp32_library chose
 * oneDNN: on a CPU with wider vectors than OpenBLAS's chosen kernels (Zen 5 with AVX-512 under
 * OPENBLAS_CORETYPE=Haswell) oneDNN was 1.6-2x faster. The trainer measures both at load and keeps the faster
 * (trainer/backend/native/fp32-library.ts).
 */
static int fp32_library = GEMM_FP32_OPENBLAS;
static int64_t onednn_f32_calls;

int gemm_set_fp32_library(int library) {
  if (library != GEMM_FP32_OPENBLAS && library != GEMM_FP32_ONEDNN) return 0;
  if (library == GEMM_FP32_ONEDNN && !gemm_onednn_available()) return 0;
  fp32_library = library;
  return 1;
}

int gemm_fp32_library(void) { return fp32_library; }

/* fp32 products (not few-row ones) on the chosen library; OpenBLAS whenever oneDNN cannot take them. */
static void fp32_products(int batch, int ta, int tb, int M, int N, int K, const float *A, size_t strideA, const float *B,
                          size_t strideB, float *out) {
  const long work = (long)M * N * K;
  if (fp32_library == GEMM_FP32_ONEDNN && work >= SMALL_GEMM_FLOPS &&
      gemm_onednn_f32_batched(batch, ta, tb, M, N, K, A, strideA, B, strideB, out)) {
    onednn_f32_calls++;
    return;
  }
  batch_t all = {ta, tb, M, N, K, A, B, strideA, strideB, out};
  const int split = batch >= 2 && work < SMALL_GEMM_FLOPS && work * batch >= MIN_SPLIT_FLOPS;
  if (!split && fp32_library == GEMM_FP32_ONEDNN && work * batch < SMALL_GEMM_FLOPS) {
    /*
     * A small product left to OpenBLAS while oneDNN carries the large ones runs on one thread. OpenBLAS's workers,
     * once woken, spin (sched_yield) for ~2^28 cycles waiting for more: the 0.5B LoRA step's 144 rank-16 products of
     * the k/v adapters ([508,16]x[16,128], ~1M multiply-adds, tens of microseconds) kept one spinning through the whole
     * step, against oneDNN's threads for the cores: 1.4 s of system time a step, 10% of its CPU time.
     */
    openblas_set_num_threads(1);
    run_range(&all, 0, batch);
    openblas_set_num_threads(gemm_threads());
    return;
  }
  parallel_for(batch, split ? gemm_threads() : 1, run_range, &all);
}

static int compute_mode = GEMM_COMPUTE_FP32;
/* bf16 compute with every product on sgemm over rounded operands (GEMM_COMPUTE_BF16_SGEMM): see gemm.h. */
static int bf16_all_sgemm = 0;

int gemm_set_compute(int mode) {
  if (mode != GEMM_COMPUTE_FP32 && mode != GEMM_COMPUTE_BF16 && mode != GEMM_COMPUTE_BF16_SGEMM) return 0;
  if (mode == GEMM_COMPUTE_BF16 && !gemm_onednn_available()) return 0;
  compute_mode = mode == GEMM_COMPUTE_FP32 ? GEMM_COMPUTE_FP32 : GEMM_COMPUTE_BF16;
  bf16_all_sgemm = mode == GEMM_COMPUTE_BF16_SGEMM;
  return 1;
}

int gemm_compute(void) { return compute_mode; }
int gemm_bf16_all_sgemm(void) { return compute_mode == GEMM_COMPUTE_BF16 && bf16_all_sgemm; }

/* fp32 products since the last gemm_stats reset (the bf16 ones are counted per geometry in gemm_onednn.c). */
static int64_t fp32_calls, fp32_ns;
static double fp32_flops;

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/*
 * bf16 products with a side this short run as sgemm on operands rounded to bf16 (stored as fp32) instead of on
 * oneDNN: the same arithmetic (a product of two bf16 values is exact in fp32, sums are fp32 either way), but oneDNN
 * 2.6's bf16 matmul is slow on thin shapes. Measured on the 0.5B step's k/v projections (N or K = 128): oneDNN took
 * 4-7x the CPU time of fp32 sgemm ([512,896]x[896,128]: 6.9 ms vs 1.7 ms; its input gradient 10.9 vs 1.5 ms), while
 * at 512 and above it takes 0.3-0.7x. LoRA's rank-r products, attention-sized batches and decoding (M = 1..8) land
 * here too.
 */
#define BF16_THIN_DIM 256

/*
 * One product of at most SKINNY_MAX_ROWS rows (sampling's head, x·Eᵀ over the vocabulary, and any few-row product) on
 * the few-row kernel, which reads the other operand once instead of packing it (skinny.h). 0: not such a product.
 */
static int is_few_rows(int batch, int ta, int M) {
  return batch == 1 && !ta && M >= 1 && M <= SKINNY_MAX_ROWS && few_row_kernel_enabled();
}
static int few_rows(int batch, int ta, int M, const float *A, const float *B, int tb, int N, int K, float *out) {
  return is_few_rows(batch, ta, M) && skinny_gemm(A, B, M, K, N, tb, 0, 0.0f, gemm_threads(), out);
}

static int few_row_enabled = -1; /* -1: ROLLOUT_LAB_FEW_ROW_GEMM not read yet (kernels run one at a time) */

int few_row_kernel_enabled(void) {
  if (few_row_enabled < 0) {
    const char *v = getenv("ROLLOUT_LAB_FEW_ROW_GEMM");
    few_row_enabled = !(v && strcmp(v, "0") == 0);
  }
  return few_row_enabled;
}

int few_row_kernel_set(int on) {
  const int before = few_row_kernel_enabled();
  few_row_enabled = on != 0;
  return before;
}

static float *rounded;
static size_t rounded_len;

/* x rounded to the nearest bf16, ties to even, kept as fp32 (a NaN stays as it is): bf16_encode's rounding. */
static void round_to_bf16(const float *x, int64_t n, float *out) {
  const uint32_t *u = (const uint32_t *)x;
  uint32_t *o = (uint32_t *)out;
  for (int64_t i = 0; i < n; i++) {
    const uint32_t v = u[i];
    const int nan = (v & 0x7fffffffu) > 0x7f800000u;
    o[i] = nan ? v : (v + 0x7fffu + ((v >> 16) & 1u)) & 0xffff0000u;
  }
}

/* count matrices of size values, stride apart, rounded into one packed run */
static void round_matrices(const float *x, int64_t count, int64_t size, size_t stride, float *out) {
  for (int64_t i = 0; i < count; i++) round_to_bf16(x + (size_t)i * stride, size, out + i * size);
}

static int64_t thin_calls, thin_ns;

static int bf16_thin_via_sgemm(int batch, int ta, int tb, int M, int N, int K, const float *A, size_t strideA, const float *B,
                               size_t strideB, float *out) {
  /* A few rows (sampling's head): only x is rounded here; the kernel rounds W in registers as it reads it, rather
     than this rounding all of W (the 136M-value embedding) into a copy at every token. */
  const int few = is_few_rows(batch, ta, M);
  const int64_t countA = strideA == 0 ? 1 : batch, countB = few ? 0 : strideB == 0 ? 1 : batch;
  const int64_t sizeA = (int64_t)M * K, sizeB = (int64_t)K * N;
  const size_t need = (size_t)(countA * sizeA + countB * sizeB);
  if (need > rounded_len) {
    free(rounded);
    rounded = malloc(need * sizeof *rounded);
    rounded_len = rounded ? need : 0;
    if (!rounded) return 0;
  }
  const int64_t t0 = now_ns();
  float *a = rounded, *b = rounded + countA * sizeA;
  round_matrices(A, countA, sizeA, strideA, a);
  round_matrices(B, countB, sizeB, strideB, b);
  if (few) {
    skinny_gemm(a, B, M, K, N, tb, 1, 0.0f, gemm_threads(), out); /* cannot refuse: is_few_rows checked M */
  } else {
    fp32_products(batch, ta, tb, M, N, K, a, strideA == 0 ? 0 : (size_t)sizeA, b, strideB == 0 ? 0 : (size_t)sizeB, out);
  }
  thin_calls++;
  thin_ns += now_ns() - t0;
  return 1;
}

int gemm_bf16_is_thin(int M, int N, int K) {
  return bf16_all_sgemm || M < BF16_THIN_DIM || N < BF16_THIN_DIM || K < BF16_THIN_DIM;
}

void gemm_batched(int batch, int ta, int tb, int M, int N, int K, const float *A, size_t strideA, const float *B,
                  size_t strideB, float *out) {
  if (compute_mode == GEMM_COMPUTE_BF16) {
    if (gemm_bf16_is_thin(M, N, K) ? bf16_thin_via_sgemm(batch, ta, tb, M, N, K, A, strideA, B, strideB, out)
                                   : gemm_bf16_batched(batch, ta, tb, M, N, K, A, strideA, B, strideB, out))
      return;
  }
  const int64_t t0 = now_ns();
  const long work = (long)M * N * K;
  if (!few_rows(batch, ta, M, A, B, tb, N, K, out)) fp32_products(batch, ta, tb, M, N, K, A, strideA, B, strideB, out);
  fp32_calls++;
  fp32_ns += now_ns() - t0;
  fp32_flops += 2.0 * batch * work;
}

int gemm_stats(char *buf, size_t len, int reset) {
  int at = snprintf(buf, len,
                    "{\"fp32\":{\"calls\":%lld,\"ms\":%.2f,\"gflop\":%.3f,\"onednnCalls\":%lld},"
                    "\"bf16ThinViaSgemm\":{\"calls\":%lld,\"ms\":%.2f},\"onednn\":",
                    (long long)fp32_calls, fp32_ns / 1e6, fp32_flops / 1e9, (long long)onednn_f32_calls, (long long)thin_calls, thin_ns / 1e6);
  if (at < 0 || (size_t)at >= len) return 0;
  if (!gemm_onednn_stats(buf + at, len - (size_t)at, reset)) return 0;
  const size_t used = strlen(buf);
  if (used + 2 > len) return 0;
  buf[used] = '}';
  buf[used + 1] = 0;
  if (reset) fp32_calls = fp32_ns = thin_calls = thin_ns = onednn_f32_calls = 0, fp32_flops = 0;
  return 1;
}
