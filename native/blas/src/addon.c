/*
 * N-API surface of the BLAS addon (plain C node_api.h; node-addon-api is not a dependency).
 *   gemm(batch, ta, tb, M, N, K, a, aOff, aStride, b, bOff, bStride, out, outOff)
 *     a / b / out are Float32Arrays; offsets and strides count elements, so the wasm backend can pass its whole
 *     heap (HEAPF32) with a tensor's memoryOffset / 4 and nothing is copied. Every extent is bounds-checked
 *     here because a wrong offset would otherwise write into unrelated memory.
 *   transpose(x, xOff, out, outOff, shape, perm)          4-byte elements (float32 / int32)
 *   gather(x, xOff, outer, axisDim, inner, idx, idxOff, n, out, outOff) -> false on an out-of-range index
 *   sumRows(x, xOff, rows, cols, out, outOff)             out[c] = sum_r x[r, c]
 *   unary(op, x, xOff, out, outOff, n)                     op 0 = exp
 *   binary(op, a, aOff, b, bOff, out, outOff, n)           op 0 = add, 1 = subtract, 2 = multiply (equal shapes)
 *   threads() -> number, setThreads(n), config() -> string (OpenBLAS build description)
 *   setCompute("fp32" | "bf16" | "bf16-sgemm") -> boolean   what gemm multiplies in (false: bf16 not available, fp32
 *     kept; "bf16-sgemm": bf16 operands, every product on sgemm, gemm.h)
 *   compute() -> "fp32" | "bf16" | "bf16-sgemm", computeLibrary() -> string (the bf16 library, or why there is none)
 *   isa() -> "baseline" | "avx2" | "avx512"   the instruction set the own kernels run on (isa.h)
 *   isaSupported() -> the widest this CPU has;  setIsa(name) -> boolean (false: the CPU lacks it, nothing changed)
 *   peakGflops(unit, threads, iterations) -> number | null   the measured peak of "avx2 fp32" | "avx512 fp32" |
 *     "avx512_bf16" on `threads` threads (peak.h); null where the CPU lacks the unit
 *   keepLargeBuffersInHeap(bytes) -> boolean   glibc malloc: blocks below `bytes` come from the heap and freed memory
 *     stays there (mmap and trim thresholds); false where the C library has no such setting
 * plus the fused decoder kernels listed in fused_napi.c.
 */
#include <node_api.h>
#include <stdint.h>
#include <stdio.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <string.h>

#include "gemm.h"
#include "gemm_onednn.h"
#include "isa.h"
#include "layout.h"
#include "peak.h"

/* fused_napi.c: the fused decoder kernels' exports. */
napi_status fused_register(napi_env env, napi_value exports);

#define CHECK(env, call)                                              \
  do {                                                                \
    if ((call) != napi_ok) {                                          \
      napi_throw_error((env), "BLAS_ADDON", "N-API call failed: " #call); \
      return NULL;                                                    \
    }                                                                 \
  } while (0)

static int get_f32(napi_env env, napi_value v, float **data, size_t *len, const char *name) {
  napi_typedarray_type type;
  void *raw = NULL;
  size_t n = 0;
  bool is_ta = false;
  char msg[96];
  if (napi_is_typedarray(env, v, &is_ta) != napi_ok || !is_ta ||
      napi_get_typedarray_info(env, v, &type, &n, &raw, NULL, NULL) != napi_ok || type != napi_float32_array) {
    snprintf(msg, sizeof msg, "%s must be a Float32Array", name);
    napi_throw_type_error(env, "BLAS_ARG", msg);
    return 0;
  }
  *data = (float *)raw;
  *len = n;
  return 1;
}

/* Any typed array of 4-byte elements (float32 / int32 / uint32): data movement does not care which. */
static int get_4byte(napi_env env, napi_value v, uint32_t **data, size_t *len, const char *name) {
  napi_typedarray_type type;
  void *raw = NULL;
  size_t n = 0;
  bool is_ta = false;
  char msg[96];
  if (napi_is_typedarray(env, v, &is_ta) != napi_ok || !is_ta ||
      napi_get_typedarray_info(env, v, &type, &n, &raw, NULL, NULL) != napi_ok ||
      (type != napi_float32_array && type != napi_int32_array && type != napi_uint32_array)) {
    snprintf(msg, sizeof msg, "%s must be a Float32Array, Int32Array or Uint32Array", name);
    napi_throw_type_error(env, "BLAS_ARG", msg);
    return 0;
  }
  *data = (uint32_t *)raw;
  *len = n;
  return 1;
}

static int get_i64(napi_env env, napi_value v, int64_t *out, const char *name) {
  char msg[96];
  if (napi_get_value_int64(env, v, out) != napi_ok || *out < 0) {
    snprintf(msg, sizeof msg, "%s must be a non-negative integer", name);
    napi_throw_type_error(env, "BLAS_ARG", msg);
    return 0;
  }
  return 1;
}

/* Last element touched by `batch` matrices of `size` elements `stride` apart, starting at `off`. */
static int fits(int64_t off, int64_t batch, int64_t stride, int64_t size, size_t len) {
  if (batch == 0 || size == 0) return off <= (int64_t)len;
  return off + (batch - 1) * stride + size <= (int64_t)len;
}

static napi_value js_gemm(napi_env env, napi_callback_info info) {
  size_t argc = 14;
  napi_value argv[14];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc != 14) {
    napi_throw_type_error(env, "BLAS_ARG", "gemm expects 14 arguments");
    return NULL;
  }
  static const char *names[] = {"batch", "ta", "tb", "M", "N", "K"};
  int64_t d[6];
  for (int i = 0; i < 6; i++)
    if (!get_i64(env, argv[i], &d[i], names[i])) return NULL;
  float *a, *b, *out;
  size_t la, lb, lo;
  int64_t aOff, aStride, bOff, bStride, oOff;
  if (!get_f32(env, argv[6], &a, &la, "a") || !get_i64(env, argv[7], &aOff, "aOff") ||
      !get_i64(env, argv[8], &aStride, "aStride") || !get_f32(env, argv[9], &b, &lb, "b") ||
      !get_i64(env, argv[10], &bOff, "bOff") || !get_i64(env, argv[11], &bStride, "bStride") ||
      !get_f32(env, argv[12], &out, &lo, "out") || !get_i64(env, argv[13], &oOff, "outOff"))
    return NULL;
  const int64_t batch = d[0], M = d[3], N = d[4], K = d[5];
  if (M > INT32_MAX || N > INT32_MAX || K > INT32_MAX || batch > INT32_MAX) {
    napi_throw_range_error(env, "BLAS_ARG", "gemm dimensions exceed 32-bit BLAS integers");
    return NULL;
  }
  if (!fits(aOff, batch, aStride, M * K, la) || !fits(bOff, batch, bStride, K * N, lb) ||
      !fits(oOff, batch, M * N, M * N, lo)) {
    napi_throw_range_error(env, "BLAS_ARG", "gemm operand extends past the end of its Float32Array");
    return NULL;
  }
  if (M > 0 && N > 0) {
    if (K == 0) {
      for (int64_t i = 0; i < batch * M * N; i++) out[oOff + i] = 0.0f;
    } else {
      gemm_batched((int)batch, d[1] != 0, d[2] != 0, (int)M, (int)N, (int)K, a + aOff, (size_t)aStride, b + bOff,
                   (size_t)bStride, out + oOff);
    }
  }
  return NULL;
}

/*
 * gemmRoundedB(batch, ta, tb, M, N, K, a, aOff, aStride, b16, bOff, bStride, out, outOff) -> boolean: gemm under bf16
 * compute with B given already rounded (b16: an Int32Array of packed bf16 halves, bOff / bStride counting bf16
 * values). false (nothing written) when the product is thin (gemm.c: it runs on sgemm instead) or oneDNN cannot
 * run it; the caller then calls gemm.
 */
static napi_value js_gemm_rounded_b(napi_env env, napi_callback_info info) {
  size_t argc = 14;
  napi_value argv[14], r;
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc != 14) {
    napi_throw_type_error(env, "BLAS_ARG", "gemmRoundedB expects 14 arguments");
    return NULL;
  }
  static const char *names[] = {"batch", "ta", "tb", "M", "N", "K"};
  int64_t d[6];
  for (int i = 0; i < 6; i++)
    if (!get_i64(env, argv[i], &d[i], names[i])) return NULL;
  float *a, *out;
  uint32_t *b;
  size_t la, lb, lo;
  int64_t aOff, aStride, bOff, bStride, oOff;
  if (!get_f32(env, argv[6], &a, &la, "a") || !get_i64(env, argv[7], &aOff, "aOff") ||
      !get_i64(env, argv[8], &aStride, "aStride") || !get_4byte(env, argv[9], &b, &lb, "b16") ||
      !get_i64(env, argv[10], &bOff, "bOff") || !get_i64(env, argv[11], &bStride, "bStride") ||
      !get_f32(env, argv[12], &out, &lo, "out") || !get_i64(env, argv[13], &oOff, "outOff"))
    return NULL;
  const int64_t batch = d[0], M = d[3], N = d[4], K = d[5];
  if (M > INT32_MAX || N > INT32_MAX || K > INT32_MAX || batch > INT32_MAX) {
    napi_throw_range_error(env, "BLAS_ARG", "gemm dimensions exceed 32-bit BLAS integers");
    return NULL;
  }
  if (!fits(aOff, batch, aStride, M * K, la) || !fits(bOff, batch, bStride, K * N, lb * 2) ||
      !fits(oOff, batch, M * N, M * N, lo)) {
    napi_throw_range_error(env, "BLAS_ARG", "gemmRoundedB operand extends past the end of its array");
    return NULL;
  }
  const int ok = gemm_compute() == GEMM_COMPUTE_BF16 && M > 0 && N > 0 && K > 0 && !gemm_bf16_is_thin((int)M, (int)N, (int)K) &&
                 gemm_bf16_batched_rounded_b((int)batch, d[1] != 0, d[2] != 0, (int)M, (int)N, (int)K, a + aOff, (size_t)aStride,
                                             (const uint16_t *)b + bOff, (size_t)bStride, out + oOff);
  CHECK(env, napi_get_boolean(env, ok, &r));
  return r;
}

/* bf16Thin(M, N, K): whether bf16 compute runs this product as sgemm on rounded operands (gemm.c says why). */
static napi_value js_bf16_thin(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3], r;
  int32_t d[3] = {0, 0, 0};
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  for (size_t i = 0; i < 3 && i < argc; i++) napi_get_value_int32(env, argv[i], &d[i]);
  CHECK(env, napi_get_boolean(env, gemm_bf16_is_thin(d[0], d[1], d[2]), &r));
  return r;
}

/* peakGflops(unit, threads, iterations): see peak.h; null when the unit is missing or an argument is out of range. */
static napi_value js_peak_gflops(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3], r;
  char unit[32] = "";
  int32_t threads = 1;
  int64_t iterations = 0;
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 3 || napi_get_value_string_utf8(env, argv[0], unit, sizeof unit, NULL) != napi_ok ||
      napi_get_value_int32(env, argv[1], &threads) != napi_ok || napi_get_value_int64(env, argv[2], &iterations) != napi_ok) {
    napi_throw_type_error(env, "BLAS_ARG", "peakGflops(unit: string, threads: number, iterations: number)");
    return NULL;
  }
  const double gflops = peak_gflops(unit, threads, iterations);
  if (gflops < 0) CHECK(env, napi_get_null(env, &r));
  else CHECK(env, napi_create_double(env, gflops, &r));
  return r;
}

/* setFewRowGemm(on): products of up to 8 rows on the few-row kernel (true) or OpenBLAS; returns the previous setting. */
static napi_value js_set_few_row_gemm(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], r;
  bool on = true;
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 1 || napi_get_value_bool(env, argv[0], &on) != napi_ok) {
    napi_throw_type_error(env, "BLAS_ARG", "setFewRowGemm expects true or false");
    return NULL;
  }
  CHECK(env, napi_get_boolean(env, few_row_kernel_set(on), &r));
  return r;
}

static int get_dims(napi_env env, napi_value v, int64_t *out, uint32_t *count, const char *name) {
  bool is_arr = false;
  char msg[96];
  if (napi_is_array(env, v, &is_arr) != napi_ok || !is_arr || napi_get_array_length(env, v, count) != napi_ok ||
      *count > MAX_RANK) {
    snprintf(msg, sizeof msg, "%s must be an array of at most %d integers", name, MAX_RANK);
    napi_throw_type_error(env, "BLAS_ARG", msg);
    return 0;
  }
  for (uint32_t i = 0; i < *count; i++) {
    napi_value e;
    if (napi_get_element(env, v, i, &e) != napi_ok || !get_i64(env, e, &out[i], name)) return 0;
  }
  return 1;
}

static napi_value js_transpose(napi_env env, napi_callback_info info) {
  size_t argc = 6;
  napi_value argv[6];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  uint32_t *x, *out;
  size_t lx, lo;
  int64_t xOff, oOff, shape[MAX_RANK], perm[MAX_RANK];
  uint32_t rank = 0, prank = 0;
  if (argc != 6 || !get_4byte(env, argv[0], &x, &lx, "x") || !get_i64(env, argv[1], &xOff, "xOff") ||
      !get_4byte(env, argv[2], &out, &lo, "out") || !get_i64(env, argv[3], &oOff, "outOff") ||
      !get_dims(env, argv[4], shape, &rank, "shape") || !get_dims(env, argv[5], perm, &prank, "perm"))
    return NULL;
  int64_t total = 1;
  int seen[MAX_RANK] = {0};
  int ok = rank == prank;
  for (uint32_t i = 0; ok && i < rank; i++) {
    total *= shape[i];
    ok = perm[i] < (int64_t)rank && !seen[perm[i]];
    if (ok) seen[perm[i]] = 1;
  }
  if (!ok) {
    napi_throw_range_error(env, "BLAS_ARG", "transpose: perm must be a permutation of the shape's axes");
    return NULL;
  }
  if (!fits(xOff, 1, 0, total, lx) || !fits(oOff, 1, 0, total, lo)) {
    napi_throw_range_error(env, "BLAS_ARG", "transpose operand extends past the end of its array");
    return NULL;
  }
  transpose4(x + xOff, out + oOff, (int)rank, shape, perm);
  return NULL;
}

static napi_value js_gather(napi_env env, napi_callback_info info) {
  size_t argc = 10;
  napi_value argv[10];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  uint32_t *x, *out, *idx;
  size_t lx, lo, li;
  int64_t xOff, outer, axisDim, inner, idxOff, n, oOff;
  if (argc != 10 || !get_4byte(env, argv[0], &x, &lx, "x") || !get_i64(env, argv[1], &xOff, "xOff") ||
      !get_i64(env, argv[2], &outer, "outer") || !get_i64(env, argv[3], &axisDim, "axisDim") ||
      !get_i64(env, argv[4], &inner, "inner") || !get_4byte(env, argv[5], &idx, &li, "idx") ||
      !get_i64(env, argv[6], &idxOff, "idxOff") || !get_i64(env, argv[7], &n, "n") ||
      !get_4byte(env, argv[8], &out, &lo, "out") || !get_i64(env, argv[9], &oOff, "outOff"))
    return NULL;
  if (!fits(xOff, 1, 0, outer * axisDim * inner, lx) || !fits(idxOff, 1, 0, n, li) ||
      !fits(oOff, 1, 0, outer * n * inner, lo)) {
    napi_throw_range_error(env, "BLAS_ARG", "gather operand extends past the end of its array");
    return NULL;
  }
  napi_value r;
  CHECK(env, napi_get_boolean(env, gather4(x + xOff, outer, axisDim, inner, (const int32_t *)(idx + idxOff), n, out + oOff), &r));
  return r;
}

static napi_value js_sum_rows(napi_env env, napi_callback_info info) {
  size_t argc = 6;
  napi_value argv[6];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  int64_t xOff, rows, cols, oOff;
  float *x, *out;
  size_t lx, lo;
  if (argc != 6 || !get_f32(env, argv[0], &x, &lx, "x") || !get_i64(env, argv[1], &xOff, "xOff") ||
      !get_i64(env, argv[2], &rows, "rows") || !get_i64(env, argv[3], &cols, "cols") ||
      !get_f32(env, argv[4], &out, &lo, "out") || !get_i64(env, argv[5], &oOff, "outOff"))
    return NULL;
  if (!fits(xOff, 1, 0, rows * cols, lx) || !fits(oOff, 1, 0, cols, lo)) {
    napi_throw_range_error(env, "BLAS_ARG", "sumRows operand extends past the end of its array");
    return NULL;
  }
  sum_rows_f32(x + xOff, rows, cols, out + oOff);
  return NULL;
}

static napi_value js_unary(napi_env env, napi_callback_info info) {
  size_t argc = 6;
  napi_value argv[6];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  int64_t op, xOff, oOff, n;
  float *x, *out;
  size_t lx, lo;
  if (argc != 6 || !get_i64(env, argv[0], &op, "op") || !get_f32(env, argv[1], &x, &lx, "x") ||
      !get_i64(env, argv[2], &xOff, "xOff") || !get_f32(env, argv[3], &out, &lo, "out") ||
      !get_i64(env, argv[4], &oOff, "outOff") || !get_i64(env, argv[5], &n, "n"))
    return NULL;
  if (op > UNARY_LAST || !fits(xOff, 1, 0, n, lx) || !fits(oOff, 1, 0, n, lo)) {
    napi_throw_range_error(env, "BLAS_ARG", "unary: unknown op or operand past the end of its array");
    return NULL;
  }
  unary_f32((int)op, x + xOff, out + oOff, n);
  return NULL;
}

static napi_value js_binary(napi_env env, napi_callback_info info) {
  size_t argc = 8;
  napi_value argv[8];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  int64_t op, aOff, bOff, oOff, n;
  float *a, *b, *out;
  size_t la, lb, lo;
  if (argc != 8 || !get_i64(env, argv[0], &op, "op") || !get_f32(env, argv[1], &a, &la, "a") ||
      !get_i64(env, argv[2], &aOff, "aOff") || !get_f32(env, argv[3], &b, &lb, "b") || !get_i64(env, argv[4], &bOff, "bOff") ||
      !get_f32(env, argv[5], &out, &lo, "out") || !get_i64(env, argv[6], &oOff, "outOff") || !get_i64(env, argv[7], &n, "n"))
    return NULL;
  if (op > BINARY_LAST || !fits(aOff, 1, 0, n, la) || !fits(bOff, 1, 0, n, lb) || !fits(oOff, 1, 0, n, lo)) {
    napi_throw_range_error(env, "BLAS_ARG", "binary: unknown op or operand past the end of its array");
    return NULL;
  }
  binary_f32((int)op, a + aOff, b + bOff, out + oOff, n);
  return NULL;
}

static napi_value js_threads(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value r;
  CHECK(env, napi_create_int32(env, gemm_threads(), &r));
  return r;
}

static napi_value js_set_threads(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  int32_t n = 0;
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 1 || napi_get_value_int32(env, argv[0], &n) != napi_ok || n < 1) {
    napi_throw_type_error(env, "BLAS_ARG", "setThreads expects a positive integer");
    return NULL;
  }
  gemm_set_threads(n);
  return NULL;
}

static napi_value js_config(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value r;
  CHECK(env, napi_create_string_utf8(env, gemm_config(), NAPI_AUTO_LENGTH, &r));
  return r;
}

static napi_value js_set_compute(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], r;
  char mode[16] = {0};
  size_t len = 0;
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 1 || napi_get_value_string_utf8(env, argv[0], mode, sizeof mode, &len) != napi_ok ||
      (strcmp(mode, "fp32") != 0 && strcmp(mode, "bf16") != 0 && strcmp(mode, "bf16-sgemm") != 0)) {
    napi_throw_type_error(env, "BLAS_ARG", "setCompute expects \"fp32\", \"bf16\" or \"bf16-sgemm\"");
    return NULL;
  }
  const int ok = gemm_set_compute(strcmp(mode, "bf16") == 0          ? GEMM_COMPUTE_BF16
                                  : strcmp(mode, "bf16-sgemm") == 0 ? GEMM_COMPUTE_BF16_SGEMM
                                                                    : GEMM_COMPUTE_FP32);
  CHECK(env, napi_get_boolean(env, ok, &r));
  return r;
}

/* setFp32Library("openblas" | "onednn"): which library multiplies large fp32 products (gemm.c, "fp32 library");
   false when oneDNN is missing from this build. */
static napi_value js_set_fp32_library(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], r;
  char name[16] = {0};
  size_t len = 0;
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 1 || napi_get_value_string_utf8(env, argv[0], name, sizeof name, &len) != napi_ok ||
      (strcmp(name, "openblas") != 0 && strcmp(name, "onednn") != 0)) {
    napi_throw_type_error(env, "BLAS_ARG", "setFp32Library expects \"openblas\" or \"onednn\"");
    return NULL;
  }
  const int ok = gemm_set_fp32_library(strcmp(name, "onednn") == 0 ? GEMM_FP32_ONEDNN : GEMM_FP32_OPENBLAS);
  CHECK(env, napi_get_boolean(env, ok, &r));
  return r;
}

static napi_value js_fp32_library(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value r;
  CHECK(env, napi_create_string_utf8(env, gemm_fp32_library() == GEMM_FP32_ONEDNN ? "onednn" : "openblas",
                                     NAPI_AUTO_LENGTH, &r));
  return r;
}

static napi_value js_compute(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value r;
  const char *name = gemm_bf16_all_sgemm() ? "bf16-sgemm" : gemm_compute() == GEMM_COMPUTE_BF16 ? "bf16" : "fp32";
  CHECK(env, napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &r));
  return r;
}

static napi_value js_compute_library(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value r;
  CHECK(env, napi_create_string_utf8(env, gemm_onednn_library(), NAPI_AUTO_LENGTH, &r));
  return r;
}

/* gemmStats(reset): where the products' time went (gemm_stats); bench:trainer --profile prints it per step. */
static napi_value js_gemm_stats(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], r;
  bool reset = false;
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc >= 1) napi_get_value_bool(env, argv[0], &reset);
  static char text[1 << 16];
  if (!gemm_stats(text, sizeof text, reset)) snprintf(text, sizeof text, "null");
  CHECK(env, napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &r));
  return r;
}

static napi_value js_isa(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value r;
  CHECK(env, napi_create_string_utf8(env, isa_name(isa_active()), NAPI_AUTO_LENGTH, &r));
  return r;
}

static napi_value js_isa_supported(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value r;
  CHECK(env, napi_create_string_utf8(env, isa_name(isa_supported()), NAPI_AUTO_LENGTH, &r));
  return r;
}

static napi_value js_set_isa(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], r;
  char name[16] = {0};
  size_t len = 0;
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  const int level = argc < 1 || napi_get_value_string_utf8(env, argv[0], name, sizeof name, &len) != napi_ok ? -1 : isa_parse(name);
  if (level < 0) {
    napi_throw_type_error(env, "BLAS_ARG", "setIsa expects \"baseline\", \"avx2\" or \"avx512\"");
    return NULL;
  }
  CHECK(env, napi_get_boolean(env, isa_select((isa_level)level), &r));
  return r;
}

/*
 * A training step allocates and frees the same large buffers every step (activations, gradients, logits). Under
 * glibc's defaults each one above 32 MiB is a fresh mmap, so its pages are faulted in and zeroed by the kernel on
 * every step: at 0.5B that was ~5 s of system time per step. Served from the heap and never trimmed, they are
 * reused instead. The same setting PyTorch's side of bench:trainer runs with (MALLOC_MMAP_THRESHOLD_ and
 * MALLOC_TRIM_THRESHOLD_), set here at run time because the trainer cannot set its own environment before start.
 */
static napi_value js_keep_large_buffers_in_heap(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], r;
  int32_t bytes = 0;
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 1 || napi_get_value_int32(env, argv[0], &bytes) != napi_ok || bytes < 1) {
    napi_throw_type_error(env, "BLAS_ARG", "keepLargeBuffersInHeap expects a positive byte count below 2^31");
    return NULL;
  }
  int ok = 0;
#ifdef __GLIBC__
  ok = mallopt(M_MMAP_THRESHOLD, bytes) == 1 && mallopt(M_TRIM_THRESHOLD, bytes) == 1;
#endif
  CHECK(env, napi_get_boolean(env, ok, &r));
  return r;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
      {"gemm", NULL, js_gemm, NULL, NULL, NULL, napi_default, NULL},
      {"transpose", NULL, js_transpose, NULL, NULL, NULL, napi_default, NULL},
      {"gather", NULL, js_gather, NULL, NULL, NULL, napi_default, NULL},
      {"sumRows", NULL, js_sum_rows, NULL, NULL, NULL, napi_default, NULL},
      {"unary", NULL, js_unary, NULL, NULL, NULL, napi_default, NULL},
      {"binary", NULL, js_binary, NULL, NULL, NULL, napi_default, NULL},
      {"threads", NULL, js_threads, NULL, NULL, NULL, napi_default, NULL},
      {"setThreads", NULL, js_set_threads, NULL, NULL, NULL, napi_default, NULL},
      {"config", NULL, js_config, NULL, NULL, NULL, napi_default, NULL},
      {"setCompute", NULL, js_set_compute, NULL, NULL, NULL, napi_default, NULL},
      {"compute", NULL, js_compute, NULL, NULL, NULL, napi_default, NULL},
      {"setFp32Library", NULL, js_set_fp32_library, NULL, NULL, NULL, napi_default, NULL},
      {"fp32Library", NULL, js_fp32_library, NULL, NULL, NULL, napi_default, NULL},
      {"computeLibrary", NULL, js_compute_library, NULL, NULL, NULL, napi_default, NULL},
      {"gemmRoundedB", NULL, js_gemm_rounded_b, NULL, NULL, NULL, napi_default, NULL},
      {"bf16Thin", NULL, js_bf16_thin, NULL, NULL, NULL, napi_default, NULL},
      {"peakGflops", NULL, js_peak_gflops, NULL, NULL, NULL, napi_default, NULL},
      {"setFewRowGemm", NULL, js_set_few_row_gemm, NULL, NULL, NULL, napi_default, NULL},
      {"gemmStats", NULL, js_gemm_stats, NULL, NULL, NULL, napi_default, NULL},
      {"isa", NULL, js_isa, NULL, NULL, NULL, napi_default, NULL},
      {"isaSupported", NULL, js_isa_supported, NULL, NULL, NULL, napi_default, NULL},
      {"setIsa", NULL, js_set_isa, NULL, NULL, NULL, napi_default, NULL},
      {"keepLargeBuffersInHeap", NULL, js_keep_large_buffers_in_heap, NULL, NULL, NULL, napi_default, NULL},
  };
  CHECK(env, napi_define_properties(env, exports, sizeof props / sizeof props[0], props));
  CHECK(env, fused_register(env, exports));
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
