/* BatchMatMul in bf16 with fp32 accumulation on oneDNN (gemm_bf16.c says why); same contract as gemm_batched. */
#ifndef ROLLOUT_LAB_GEMM_BF16_H
#define ROLLOUT_LAB_GEMM_BF16_H
#include <stddef.h>

/* 1 when the addon was built with oneDNN and its CPU engine starts. */
int gemm_bf16_available(void);
/* 0 (nothing written) when oneDNN cannot run this product; the caller then multiplies in fp32. */
int gemm_bf16_batched(int batch, int ta, int tb, int M, int N, int K, const float *A, size_t strideA, const float *B,
                      size_t strideB, float *out);
/*
 * The same with B already rounded to bf16 by the caller (B16, packed: strideB is 0 or K*N), so a weight used by
 * several products of a step is rounded once (trainer/backend/native/bf16-weight-cache.ts). 0 when it cannot run.
 */
#include <stdint.h>
int gemm_bf16_batched_rounded_b(int batch, int ta, int tb, int M, int N, int K, const float *A, size_t strideA,
                                const uint16_t *B16, size_t strideB, float *out);
/* Per product geometry since the last reset: calls and time rounding operands / in oneDNN, as JSON into buf. */
int gemm_bf16_stats(char *buf, size_t len, int reset);
/* "oneDNN 2.6.3", or why there is none. */
const char *gemm_bf16_library(void);

#endif
