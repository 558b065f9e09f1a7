/* Row-major single-precision GEMM over a batch, with broadcast of either operand (stride 0). */
#ifndef ROLLOUT_LAB_GEMM_H
#define ROLLOUT_LAB_GEMM_H
#include <stddef.h>

/*
 * out[i] = op(A[i]) x op(B[i]) for i in [0, batch), op = transpose when ta/tb is set.
 * Shapes as TF.js BatchMatMul sees them after its rank-3 reshape:
 *   A[i] is [M,K] ([K,M] when ta), B[i] is [K,N] ([N,K] when tb), out[i] is [M,N].
 * strideA / strideB are element distances between consecutive batch items (0 = broadcast one matrix).
 */
void gemm_batched(int batch, int ta, int tb, int M, int N, int K, const float *A, size_t strideA, const float *B,
                  size_t strideB, float *out);

/*
 * What gemm_batched computes in: fp32 (OpenBLAS or oneDNN, gemm_set_fp32_library) or bf16 inputs with fp32 accumulation (oneDNN, see
 * gemm_onednn.c). gemm_set_compute returns 0 and keeps fp32 when bf16 is not available in this build.
 * GEMM_COMPUTE_BF16_SGEMM is bf16 compute with every product run as sgemm on operands rounded to bf16: the same
 * numbers as oneDNN's (a product of two bf16 values is exact in fp32), for a CPU where oneDNN's bf16 is missing or
 * fails the float64 check (on CPUs without AVX-512, oneDNN 2.6 gave 7.6e-4 relative error); it needs no oneDNN and
 * is no faster than fp32. gemm_compute() reports it as GEMM_COMPUTE_BF16.
 */
#define GEMM_COMPUTE_FP32 0
#define GEMM_COMPUTE_BF16 1
#define GEMM_COMPUTE_BF16_SGEMM 2
int gemm_set_compute(int mode);
int gemm_compute(void);
/* 1 under GEMM_COMPUTE_BF16_SGEMM. */
int gemm_bf16_all_sgemm(void);
/* 1 when bf16 compute runs this product as sgemm on rounded operands rather than on oneDNN (gemm.c says why). */
int gemm_bf16_is_thin(int M, int N, int K);

/*
 * Which library multiplies fp32 products of at least 2^22 multiply-adds per matrix: OpenBLAS (the default) or oneDNN
 * (gemm.c says when that is faster). gemm_set_fp32_library returns 0 and changes nothing when oneDNN is missing.
 */
#define GEMM_FP32_OPENBLAS 0
#define GEMM_FP32_ONEDNN 1
int gemm_set_fp32_library(int library);
int gemm_fp32_library(void);

/* Calls and time of the products since the last reset, fp32 in total and bf16 per geometry, as JSON (0: buf too short). */
int gemm_stats(char *buf, size_t len, int reset);

/*
 * 0 when few-row products go to OpenBLAS like the rest: ROLLOUT_LAB_FEW_ROW_GEMM=0 at load, or few_row_kernel_set(0)
 * (bench:compute compares the two). Otherwise products of up to SKINNY_MAX_ROWS rows run on skinny.c.
 */
int few_row_kernel_enabled(void);
/* Returns the previous setting. */
int few_row_kernel_set(int on);

int gemm_threads(void);
void gemm_set_threads(int n);
const char *gemm_config(void);

#endif
