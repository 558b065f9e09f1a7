/* Data-movement and elementwise kernels that the tfjs wasm backend runs slowly (measured in bench/matmul.ts). */
#ifndef ROLLOUT_LAB_LAYOUT_H
#define ROLLOUT_LAB_LAYOUT_H
#include <stddef.h>
#include <stdint.h>

#define MAX_RANK 8

/* out = x transposed by perm; 4-byte elements (float32 or int32 alike). rank <= MAX_RANK. */
void transpose4(const uint32_t *x, uint32_t *out, int rank, const int64_t *shape, const int64_t *perm);

/*
 * x viewed as [outer, axisDim, inner]; out[o, j, :] = x[o, idx[j], :] for j < n. Returns 0 when an index is outside
 * [0, axisDim) (nothing useful is written; the caller falls back), 1 otherwise.
 */
int gather4(const uint32_t *x, int64_t outer, int64_t axisDim, int64_t inner, const int32_t *idx, int64_t n,
            uint32_t *out);

/* out[c] = sum over r of x[r, c] for x [rows, cols]: a sum over leading axes, e.g. a broadcast weight's gradient. */
void sum_rows_f32(const float *x, int64_t rows, int64_t cols, float *out);

enum unary_op { UNARY_EXP = 0, UNARY_LAST = UNARY_EXP };
void unary_f32(int op, const float *x, float *out, int64_t n);
/* out = a op b element-wise over n values (equal shapes): the gradient sums and residuals of a training step. */
enum binary_op { BINARY_ADD = 0, BINARY_SUB = 1, BINARY_MUL = 2, BINARY_LAST = BINARY_MUL };
void binary_f32(int op, const float *a, const float *b, float *out, int64_t n);

#endif
