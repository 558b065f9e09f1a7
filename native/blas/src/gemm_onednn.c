/*
 * BatchMatMul on oneDNN's matmul primitive, in two forms:
 *
 * - bf16 compute (`policy.compute: "bf16"`): both operands rounded to bfloat16, products accumulated and written in
 *   float32 — what PyTorch's CPU autocast does for matmul. The rounding happens here, per call, so master weights,
 *   gradients and optimizer state stay float32 everywhere else.
 * - fp32 products, on a CPU whose OpenBLAS kernels are narrower than the CPU (gemm.c, "fp32 library"): on an AMD
 *   Zen 5 with AVX-512, Debian's OpenBLAS 0.3.21 must run its Haswell (AVX2) kernels (OPENBLAS_CORETYPE=Haswell; it
 *   mis-computes otherwise), while oneDNN's AVX-512 kernels ran the 0.5B step's products at 1.6-2x its rate.
 *
 * Why oneDNN: on CPUs with avx512_bf16 / AMX its bf16 matmul runs ~3x OpenBLAS's fp32 sgemm on this project's
 * machines (0.5B MLP shape [2048,896]x[896,4864]: ~1,000 GFLOP/s against ~300), and Debian's libdnnl is the build
 * PyTorch links here. Built only when native/build.mjs finds oneDNN's headers (ROLLOUT_LAB_HAVE_DNNL); otherwise
 * gemm_onednn_available() says no and the trainer stays on fp32 with one log line.
 *
 * Primitives are cached per geometry: creating one costs ~0.1-1 ms, a training step reuses a few dozen shapes.
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime under -std=c11 */
#include "gemm_onednn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bf16.h"
#include "gemm.h"
#include "parallel.h"

#ifdef ROLLOUT_LAB_HAVE_DNNL
#include <oneapi/dnnl/dnnl.h>
#include <pthread.h>

typedef struct {
  int64_t batchA, batchB, batch, M, N, K;
  int ta, tb;
  int f32; /* 1: fp32 operands as they are; 0: operands rounded to bf16 */
} geometry;

typedef struct {
  geometry g;
  dnnl_primitive_t prim;
  int used;
  /* Where this geometry's time went since the last gemm_stats reset (bench:trainer --profile prints it). */
  int64_t calls, encode_ns, exec_ns;
} cached_primitive;

#define CACHE_SLOTS 96
static cached_primitive cache[CACHE_SLOTS];
static int next_victim = 0;
static dnnl_engine_t engine = NULL;
static dnnl_stream_t stream = NULL;
static int engine_failed = 0;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Scratch for the rounded operands, grown as needed and kept (a step repeats the same sizes). */
static uint16_t *scratch = NULL;
static size_t scratch_len = 0;

static int ensure_engine(void) {
  if (engine) return 1;
  if (engine_failed) return 0;
  if (dnnl_engine_create(&engine, dnnl_cpu, 0) != dnnl_success ||
      dnnl_stream_create(&stream, engine, dnnl_stream_default_flags) != dnnl_success) {
    engine_failed = 1;
    return 0;
  }
  return 1;
}

/* A 3-D [b, rows, cols] descriptor for a matrix stored [rows, cols] (or [cols, rows] when transposed). */
static int describe(dnnl_memory_desc_t *md, int64_t b, int64_t rows, int64_t cols, int trans, dnnl_data_type_t type) {
  dnnl_dims_t dims = {b, rows, cols};
  dnnl_dims_t strides = {rows * cols, trans ? 1 : cols, trans ? rows : 1};
  return dnnl_memory_desc_init_by_strides(md, 3, dims, type, strides) == dnnl_success;
}

static dnnl_data_type_t operand_type(const geometry *g) { return g->f32 ? dnnl_f32 : dnnl_bf16; }

static dnnl_primitive_t create_primitive(const geometry *g) {
  dnnl_memory_desc_t src, wei, dst;
  const dnnl_data_type_t type = operand_type(g);
  if (!describe(&src, g->batchA, g->M, g->K, g->ta, type) || !describe(&wei, g->batchB, g->K, g->N, g->tb, type) ||
      !describe(&dst, g->batch, g->M, g->N, 0, dnnl_f32))
    return NULL;
  dnnl_matmul_desc_t desc;
  if (dnnl_matmul_desc_init(&desc, &src, &wei, NULL, &dst) != dnnl_success) return NULL;
  dnnl_primitive_desc_t pd;
  if (dnnl_primitive_desc_create(&pd, &desc, NULL, engine, NULL) != dnnl_success) return NULL;
  dnnl_primitive_t prim = NULL;
  if (dnnl_primitive_create(&prim, pd) != dnnl_success) prim = NULL;
  dnnl_primitive_desc_destroy(pd);
  return prim;
}

static int64_t primitives_created = 0;

static cached_primitive *find_primitive(const geometry *g) {
  for (int i = 0; i < CACHE_SLOTS; i++)
    if (cache[i].used && memcmp(&cache[i].g, g, sizeof *g) == 0) return &cache[i];
  dnnl_primitive_t prim = create_primitive(g);
  if (!prim) return NULL;
  primitives_created++;
  cached_primitive *slot = &cache[next_victim];
  next_victim = (next_victim + 1) % CACHE_SLOTS;
  if (slot->used) dnnl_primitive_destroy(slot->prim);
  memset(slot, 0, sizeof *slot);
  slot->g = *g;
  slot->prim = prim;
  slot->used = 1;
  return slot;
}

static uint16_t *scratch_for(size_t n) {
  if (n > scratch_len) {
    free(scratch);
    scratch = malloc(n * sizeof *scratch);
    scratch_len = scratch ? n : 0;
  }
  return scratch;
}

/*
 * Rounds `count` matrices of `size` values, `stride` apart, into one packed run, in pieces of ENCODE_PIECE values
 * shared over the BLAS threads: rounding a [151936, 896] head on one thread took ~60 ms of a product that oneDNN
 * runs on both cores, so one core idled through it.
 */
#define ENCODE_PIECE (1L << 16)
#define ENCODE_SPLIT (1L << 22)
typedef struct {
  const float *x;
  int64_t size, pieces;
  size_t stride;
  uint16_t *out;
} encode_t;

static void encode_range(void *ctx, int64_t first, int64_t last) {
  const encode_t *e = (const encode_t *)ctx;
  for (int64_t u = first; u < last; u++) {
    const int64_t m = u / e->pieces, start = (u % e->pieces) * ENCODE_PIECE;
    const int64_t n = e->size - start < ENCODE_PIECE ? e->size - start : ENCODE_PIECE;
    bf16_encode(e->x + (size_t)m * e->stride + start, n, e->out + m * e->size + start);
  }
}

static void round_operand(const float *x, int64_t count, int64_t size, size_t stride, uint16_t *out) {
  encode_t e = {x, size, (size + ENCODE_PIECE - 1) / ENCODE_PIECE, stride, out};
  const int64_t units = count * e.pieces;
  /* Only large operands (a weight, the head's gradient): under load, waiting for a second thread to be scheduled
     cost an activation of [508, 896] ~10 ms of wall time in bench:trainer --profile, for ~0.3 ms of rounding. */
  parallel_for(units, count * size >= ENCODE_SPLIT ? gemm_threads() : 1, encode_range, &e);
}

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Runs g's primitive on operands already in its types (bf16 or fp32), writing out; counts the time as exec. */
static int execute(const geometry *g, const void *a, const void *b, float *out, int64_t encode_ns) {
  const int64_t t0 = now_ns();
  cached_primitive *slot = find_primitive(g);
  if (!slot) return 0;
  const dnnl_data_type_t type = operand_type(g);
  dnnl_memory_desc_t src, wei, dst;
  describe(&src, g->batchA, g->M, g->K, g->ta, type);
  describe(&wei, g->batchB, g->K, g->N, g->tb, type);
  describe(&dst, g->batch, g->M, g->N, 0, dnnl_f32);
  dnnl_memory_t ms = NULL, mw = NULL, md = NULL;
  /* oneDNN only reads src and weights; its C API takes every handle as void *. */
  int ok = dnnl_memory_create(&ms, &src, engine, (void *)a) == dnnl_success &&
           dnnl_memory_create(&mw, &wei, engine, (void *)b) == dnnl_success &&
           dnnl_memory_create(&md, &dst, engine, out) == dnnl_success;
  if (ok) {
    dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, md}};
    ok = dnnl_primitive_execute(slot->prim, stream, 3, args) == dnnl_success && dnnl_stream_wait(stream) == dnnl_success;
  }
  slot->calls++;
  slot->encode_ns += encode_ns;
  slot->exec_ns += now_ns() - t0;
  if (ms) dnnl_memory_destroy(ms);
  if (mw) dnnl_memory_destroy(mw);
  if (md) dnnl_memory_destroy(md);
  return ok;
}

/* B16, when given, is B already rounded (packed [batchB, K, N] or its transpose): only A is rounded here. */
static int run_bf16(const geometry *g, const float *A, size_t strideA, const float *B, size_t strideB, const uint16_t *B16,
                    float *out) {
  if (!ensure_engine()) return 0;
  const size_t sizeA = (size_t)g->M * g->K, sizeB = (size_t)g->K * g->N;
  uint16_t *buf = scratch_for(sizeA * g->batchA + (B16 ? 0 : sizeB * g->batchB));
  if (!buf) return 0;
  uint16_t *a16 = buf, *b16 = B16 ? (uint16_t *)B16 : buf + sizeA * g->batchA;
  const int64_t t0 = now_ns();
  round_operand(A, g->batchA, (int64_t)sizeA, strideA, a16);
  if (!B16) round_operand(B, g->batchB, (int64_t)sizeB, strideB, b16);
  return execute(g, a16, b16, out, now_ns() - t0);
}

int gemm_onednn_available(void) {
  pthread_mutex_lock(&lock);
  const int ok = ensure_engine();
  pthread_mutex_unlock(&lock);
  return ok;
}

/* Filled in place, not returned by value: a struct copy need not carry its padding bytes, which the cache compares. */
static void geometry_of(geometry *out, int batch, int ta, int tb, int M, int N, int K, size_t strideA, size_t strideB,
                        int f32) {
  geometry g;
  memset(&g, 0, sizeof g);
  g.batch = batch;
  g.batchA = strideA == 0 ? 1 : batch;
  g.batchB = strideB == 0 ? 1 : batch;
  g.M = M;
  g.N = N;
  g.K = K;
  g.ta = ta;
  g.tb = tb;
  g.f32 = f32;
  memcpy(out, &g, sizeof g);
}

static int batched(int batch, int ta, int tb, int M, int N, int K, const float *A, size_t strideA, const float *B,
                   size_t strideB, const uint16_t *B16, float *out) {
  geometry g;
  geometry_of(&g, batch, ta, tb, M, N, K, strideA, strideB, 0);
  pthread_mutex_lock(&lock);
  const int ok = run_bf16(&g, A, strideA, B, strideB, B16, out);
  pthread_mutex_unlock(&lock);
  return ok;
}

int gemm_onednn_f32_batched(int batch, int ta, int tb, int M, int N, int K, const float *A, size_t strideA, const float *B,
                            size_t strideB, float *out) {
  /* oneDNN reads each operand as packed matrices (or one broadcast matrix): other strides stay on OpenBLAS. */
  if ((strideA != 0 && strideA != (size_t)M * K) || (strideB != 0 && strideB != (size_t)K * N)) return 0;
  geometry g;
  geometry_of(&g, batch, ta, tb, M, N, K, strideA, strideB, 1);
  pthread_mutex_lock(&lock);
  const int ok = ensure_engine() && execute(&g, A, B, out, 0);
  pthread_mutex_unlock(&lock);
  return ok;
}

int gemm_bf16_batched(int batch, int ta, int tb, int M, int N, int K, const float *A, size_t strideA, const float *B,
                      size_t strideB, float *out) {
  return batched(batch, ta, tb, M, N, K, A, strideA, B, strideB, NULL, out);
}

int gemm_bf16_batched_rounded_b(int batch, int ta, int tb, int M, int N, int K, const float *A, size_t strideA,
                                const uint16_t *B16, size_t strideB, float *out) {
  if (strideB != 0 && strideB != (size_t)K * N) return 0; /* oneDNN reads B16 as packed matrices */
  return batched(batch, ta, tb, M, N, K, A, strideA, NULL, strideB, B16, out);
}

int gemm_onednn_stats(char *buf, size_t len, int reset) {
  pthread_mutex_lock(&lock);
  size_t at = (size_t)snprintf(buf, len, "{\"primitivesCreated\":%lld,\"shapes\":[", (long long)primitives_created);
  int first = 1;
  for (int i = 0; i < CACHE_SLOTS && at < len; i++) {
    cached_primitive *c = &cache[i];
    if (!c->used || c->calls == 0) continue;
    at += (size_t)snprintf(buf + at, len - at,
                           "%s{\"type\":\"%s\",\"batch\":%lld,\"M\":%lld,\"N\":%lld,\"K\":%lld,\"ta\":%d,\"tb\":%d,\"calls\":%lld,"
                           "\"encodeMs\":%.2f,\"execMs\":%.2f}",
                           first ? "" : ",", c->g.f32 ? "fp32" : "bf16", (long long)c->g.batch, (long long)c->g.M, (long long)c->g.N, (long long)c->g.K,
                           c->g.ta, c->g.tb, (long long)c->calls, c->encode_ns / 1e6, c->exec_ns / 1e6);
    first = 0;
    if (reset) c->calls = c->encode_ns = c->exec_ns = 0;
  }
  if (at < len) at += (size_t)snprintf(buf + at, len - at, "]}");
  if (reset) primitives_created = 0;
  pthread_mutex_unlock(&lock);
  return at < len;
}

const char *gemm_onednn_library(void) {
  const dnnl_version_t *v = dnnl_version();
  static char text[64];
  snprintf(text, sizeof text, "oneDNN %d.%d.%d", v->major, v->minor, v->patch);
  return text;
}

#else

int gemm_onednn_available(void) { return 0; }
int gemm_bf16_batched(int batch, int ta, int tb, int M, int N, int K, const float *A, size_t strideA, const float *B,
                      size_t strideB, float *out) {
  (void)batch, (void)ta, (void)tb, (void)M, (void)N, (void)K, (void)A, (void)strideA, (void)B, (void)strideB, (void)out;
  return 0;
}
int gemm_bf16_batched_rounded_b(int batch, int ta, int tb, int M, int N, int K, const float *A, size_t strideA,
                                const uint16_t *B16, size_t strideB, float *out) {
  (void)batch, (void)ta, (void)tb, (void)M, (void)N, (void)K, (void)A, (void)strideA, (void)B16, (void)strideB, (void)out;
  return 0;
}
int gemm_onednn_f32_batched(int batch, int ta, int tb, int M, int N, int K, const float *A, size_t strideA, const float *B,
                            size_t strideB, float *out) {
  (void)batch, (void)ta, (void)tb, (void)M, (void)N, (void)K, (void)A, (void)strideA, (void)B, (void)strideB, (void)out;
  return 0;
}
int gemm_onednn_stats(char *buf, size_t len, int reset) {
  (void)reset;
  return snprintf(buf, len, "{\"primitivesCreated\":0,\"shapes\":[]}") < (int)len;
}
const char *gemm_onednn_library(void) { return "none (built without oneDNN headers)"; }

#endif
