/*
 * Weights that get no gradient (a LoRA run's frozen base, a KL reference policy) stored as bfloat16: the top 16
 * bits of a float32, so the same exponent range with 8 significant bits. They are read by widening back to float32
 * a panel at a time, just before OpenBLAS multiplies it, so a full-precision copy never exists.
 * Packed two per 4-byte element (TF.js has no 16-bit dtype): value i is the i-th uint16 of the buffer.
 */
#ifndef ROLLOUT_LAB_BF16_H
#define ROLLOUT_LAB_BF16_H
#include <stdint.h>

/* Rounds to nearest, ties to even (as torch's .to(torch.bfloat16)); a NaN stays a NaN. */
void bf16_encode(const float *x, int64_t n, uint16_t *out);
void bf16_decode(const uint16_t *x, int64_t n, float *out);

/*
 * y[M, N] = x[M, K] @ W, with W stored [K, N] (transW 0) or y = x @ Wᵀ with W stored [N, K] (transW 1) — the second
 * is also the first's input gradient (dx = dy @ Wᵀ), so one kernel serves forward and backward passes.
 */
void bf16_matmul(const float *x, const uint16_t *w, int64_t M, int64_t K, int64_t N, int transW, float *y);

/* out[r] = table[ids[r]] widened, for table [rows, D]; returns 0 (nothing written) on an id outside [0, rows). */
int bf16_gather_rows(const uint16_t *table, int64_t rows, int64_t D, const int32_t *ids, int64_t n, float *out);

#endif
