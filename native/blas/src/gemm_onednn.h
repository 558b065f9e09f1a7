/* BatchMatMul on oneDNN (gemm_onednn.c says why): bf16 compute, and fp32 where OpenBLAS is narrower than the CPU. */
#ifndef ROLLOUT_LAB_GEMM_ONEDNN_H
#define ROLLOUT_LAB_GEMM_ONEDNN_H
#include <stddef.h>
#include <stdint.h>

/* 1 when the addon was built with oneDNN and its CPU engine starts. */
int gemm_onednn_available(void);
/* bf16 inputs, fp32 accumulation; gemm_batched's contract. 0 (nothing written) when oneDNN cannot run this product. */
int gemm_bf16_batched(int batch, int ta, int tb, int M, int N, int K, const float *A, size_t strideA, const float *B,
                      size_t strideB, float *out);
/*
 * The same with B already rounded to bf16 by the caller (B16, packed: strideB is 0 or K*N), so a weight used by
 * several products of a step is rounded once (trainer/backend/native/bf16-weight-cache.ts). 0 when it cannot run.
 */
int gemm_bf16_batched_rounded_b(int batch, int ta, int tb, int M, int N, int K, const float *A, size_t strideA,
                                const uint16_t *B16, size_t strideB, float *out);
/* fp32 throughout; gemm_batched's contract. 0 (nothing written) when oneDNN cannot run it (strides other than
   packed or broadcast, no oneDNN): the caller then uses OpenBLAS. */
int gemm_onednn_f32_batched(int batch, int ta, int tb, int M, int N, int K, const float *A, size_t strideA, const float *B,
                            size_t strideB, float *out);
/* Per product geometry since the last reset: calls and time rounding operands / in oneDNN, as JSON into buf. */
int gemm_onednn_stats(char *buf, size_t len, int reset);
/* "oneDNN 2.6.3", or why there is none. */
const char *gemm_onednn_library(void);

#endif
