/*
 * Transpose, gather and exp. CPU time per call on this machine, tfjs-backend-wasm 4.22 vs here (bench/matmul.ts):
 * transpose [2048,512] 12.4 -> ~3-7 ms, gather 2048 rows of [256,128] 23.6 -> 0.12 ms, exp over [2048,256]
 * 8.9 -> 2.6 ms, sum over axis 0 of [2048,128] ~1.9 ms (it transposes first) -> a single streaming pass. (Sigmoid was tried and dropped: XNNPACK's vectorised wasm sigmoid beats scalar expf.)
 * Nothing here allocates: outputs are tensors the backend already allocated.
 */
#include "layout.h"

#include <math.h>
#include <string.h>
#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

/* Tile edge: 128 measured fastest for [2048,512] on this Xeon (2.2-2.6 ms vs ~4 ms at 32-64). */
#define BLOCK 128

/*
 * One [rows, cols] matrix -> [cols, rows], in BLOCK x BLOCK tiles so reads and writes both stay in cache, each tile
 * in 4x4 SSE register transposes. The plain scalar loop ran 2.4x slower when rows/cols are only known at run time.
 */
static void transpose_tile(const uint32_t *restrict x, uint32_t *restrict out, int64_t rows, int64_t cols) {
  for (int64_t r0 = 0; r0 < rows; r0 += BLOCK) {
    const int64_t r1 = r0 + BLOCK < rows ? r0 + BLOCK : rows;
    for (int64_t c0 = 0; c0 < cols; c0 += BLOCK) {
      const int64_t c1 = c0 + BLOCK < cols ? c0 + BLOCK : cols;
      int64_t r = r0;
#if defined(__SSE2__)
      for (; r + 4 <= r1; r += 4) {
        int64_t c = c0;
        for (; c + 4 <= c1; c += 4) {
          __m128 a = _mm_loadu_ps((const float *)x + r * cols + c);
          __m128 b = _mm_loadu_ps((const float *)x + (r + 1) * cols + c);
          __m128 e = _mm_loadu_ps((const float *)x + (r + 2) * cols + c);
          __m128 d = _mm_loadu_ps((const float *)x + (r + 3) * cols + c);
          _MM_TRANSPOSE4_PS(a, b, e, d);
          _mm_storeu_ps((float *)out + c * rows + r, a);
          _mm_storeu_ps((float *)out + (c + 1) * rows + r, b);
          _mm_storeu_ps((float *)out + (c + 2) * rows + r, e);
          _mm_storeu_ps((float *)out + (c + 3) * rows + r, d);
        }
        for (; c < c1; c++)
          for (int64_t k = 0; k < 4; k++) out[c * rows + r + k] = x[(r + k) * cols + c];
      }
#endif
      for (; r < r1; r++)
        for (int64_t c = c0; c < c1; c++) out[c * rows + r] = x[r * cols + c];
    }
  }
}

/* Batched 2-D transpose: `batch` matrices [rows, cols] of `chunk`-element items -> [cols, rows]. */
static void transpose_2d(const uint32_t *x, uint32_t *out, int64_t batch, int64_t rows, int64_t cols, int64_t chunk) {
  const int64_t stride = rows * cols * chunk;
  for (int64_t b = 0; b < batch; b++) {
    if (chunk == 1) {
      transpose_tile(x + b * stride, out + b * stride, rows, cols);
      continue;
    }
    for (int64_t r = 0; r < rows; r++)
      for (int64_t c = 0; c < cols; c++)
        memcpy(out + b * stride + (c * rows + r) * chunk, x + b * stride + (r * cols + c) * chunk, (size_t)chunk * 4);
  }
}

void transpose4(const uint32_t *x, uint32_t *out, int rank, const int64_t *shape, const int64_t *perm) {
  int64_t total = 1;
  for (int i = 0; i < rank; i++) total *= shape[i];
  if (total == 0) return;
  /* Simplify first: drop size-1 axes, then merge axes that stay adjacent and in order. [1,0] on a matrix stays a
     2-D swap; [0,2,1,3] on [B,T,H,hd] becomes "swap T and H in blocks of hd", the fast case below. */
  int renum[MAX_RANK], k = 0;
  int64_t d[MAX_RANK];
  for (int i = 0; i < rank; i++) {
    renum[i] = shape[i] == 1 ? -1 : k;
    if (shape[i] != 1) d[k++] = shape[i];
  }
  int pk[MAX_RANK], m = 0;
  for (int i = 0; i < rank; i++)
    if (renum[perm[i]] >= 0) pk[m++] = renum[perm[i]];
  /* groups in output order: each is an input range [first[g], first[g] + len[g]) */
  int first[MAX_RANK], len[MAX_RANK], ng = 0;
  for (int q = 0; q < m; q++) {
    if (ng > 0 && pk[q] == first[ng - 1] + len[ng - 1]) {
      len[ng - 1]++;
    } else {
      first[ng] = pk[q];
      len[ng++] = 1;
    }
  }
  /* input order of groups = rank of first[] */
  int64_t dims[MAX_RANK];
  int p[MAX_RANK];
  const int np = ng;
  for (int g = 0; g < ng; g++) {
    int r = 0;
    for (int h = 0; h < ng; h++) r += first[h] < first[g];
    p[g] = r;
    int64_t size = 1;
    for (int a = first[g]; a < first[g] + len[g]; a++) size *= d[a];
    dims[r] = size;
  }
  int identity = 1;
  for (int i = 0; i < np; i++) identity &= p[i] == i;
  if (identity) {
    memcpy(out, x, (size_t)total * 4);
    return;
  }
  /* Fast case: output order is (prefix, b, a, suffix) for input (prefix, a, b, suffix). */
  if (np >= 2) {
    int lo = 0;
    while (p[lo] == lo) lo++;
    int hi = np - 1;
    while (p[hi] == hi) hi--;
    if (hi - lo == 1 && p[lo] == hi && p[hi] == lo) {
      int64_t batch = 1, chunk = 1;
      for (int i = 0; i < lo; i++) batch *= dims[i];
      for (int i = hi + 1; i < np; i++) chunk *= dims[i];
      transpose_2d(x, out, batch, dims[lo], dims[hi], chunk);
      return;
    }
  }
  /* General case: walk the output in order with an odometer over input strides. */
  int64_t inStride[MAX_RANK], outDims[MAX_RANK], stepIn[MAX_RANK], idx[MAX_RANK];
  inStride[np - 1] = 1;
  for (int i = np - 2; i >= 0; i--) inStride[i] = inStride[i + 1] * dims[i + 1];
  for (int i = 0; i < np; i++) {
    outDims[i] = dims[p[i]];
    stepIn[i] = inStride[p[i]];
    idx[i] = 0;
  }
  int64_t src = 0;
  for (int64_t o = 0; o < total; o++) {
    out[o] = x[src];
    for (int a = np - 1; a >= 0; a--) {
      src += stepIn[a];
      if (++idx[a] < outDims[a]) break;
      src -= stepIn[a] * outDims[a];
      idx[a] = 0;
    }
  }
}

int gather4(const uint32_t *x, int64_t outer, int64_t axisDim, int64_t inner, const int32_t *idx, int64_t n,
            uint32_t *out) {
  for (int64_t j = 0; j < n; j++)
    if (idx[j] < 0 || idx[j] >= axisDim) return 0;
  for (int64_t o = 0; o < outer; o++) {
    const uint32_t *xo = x + o * axisDim * inner;
    uint32_t *oo = out + o * n * inner;
    for (int64_t j = 0; j < n; j++) memcpy(oo + j * inner, xo + (int64_t)idx[j] * inner, (size_t)inner * 4);
  }
  return 1;
}

void sum_rows_f32(const float *x, int64_t rows, int64_t cols, float *out) {
  for (int64_t c = 0; c < cols; c++) out[c] = 0.0f;
  /* Row after row keeps both streams contiguous and vectorisable; the stock wasm Sum transposes first. */
  for (int64_t r = 0; r < rows; r++) {
    const float *xr = x + r * cols;
    for (int64_t c = 0; c < cols; c++) out[c] += xr[c];
  }
}

void unary_f32(int op, const float *x, float *out, int64_t n) {
  if (op == UNARY_EXP)
    for (int64_t i = 0; i < n; i++) out[i] = expf(x[i]);
}

void binary_f32(int op, const float *a, const float *b, float *out, int64_t n) {
  /* out may be a or b (an in-place caller); each element is read before it is written, so no restrict */
  if (op == BINARY_ADD)
    for (int64_t i = 0; i < n; i++) out[i] = a[i] + b[i];
  else if (op == BINARY_SUB)
    for (int64_t i = 0; i < n; i++) out[i] = a[i] - b[i];
  else if (op == BINARY_MUL)
    for (int64_t i = 0; i < n; i++) out[i] = a[i] * b[i];
}
