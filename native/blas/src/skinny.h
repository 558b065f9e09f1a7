/*
 * Few-row products (decoding: one row per sequence in the batch), y[M, N] = x[M, K] · W + beta · y, for M up to
 * SKINNY_MAX_ROWS. OpenBLAS packs the whole weight into its own panel layout on every call, which for eight rows costs
 * as much as the arithmetic; these kernels read each weight once, in place, and use it for every row while it is in
 * cache. W is [K, N] (transW 0, a projection's weight) or [N, K] (transW 1, a tied head's embedding), row-major.
 * Compiled once per instruction set (skinny_isa_*.c, isa.c). Columns are shared over `threads` threads when the
 * product is large enough to repay starting them.
 */
#ifndef ROLLOUT_LAB_SKINNY_H
#define ROLLOUT_LAB_SKINNY_H
#include <stdint.h>

#define SKINNY_MAX_ROWS 8

/*
 * roundW: W's values are rounded to bf16 (ties to even) in registers as they are read, for bf16 compute without a
 * rounded copy of W; x must then come rounded already. Returns 0 (nothing written) when M is outside [1, SKINNY_MAX_ROWS].
 */
int skinny_gemm(const float *x, const float *w, int64_t M, int64_t K, int64_t N, int transW, int roundW, float beta,
                int threads, float *y);

#endif
