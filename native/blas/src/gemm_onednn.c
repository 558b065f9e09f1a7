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
  /* A column part of a wider product (split_columns): B's and out's rows are `ld` values apart, not N. 0: packed. */
  int64_t ld;
} geometry;

typedef struct {
  geometry g;
  dnnl_primitive_t prim;
  int used;
  size_t scratchpad_bytes; /* a column part's own scratchpad (user mode: each part brings its own buffer) */
  int parts;               /* > 1: this slot counts a whole product run in this many column parts */
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

/* A 3-D [b, rows, cols] descriptor for a matrix stored [rows, cols] (or [cols, rows] when transposed), its stored
   rows `ld` values apart (0: packed). */
static int describe_ld(dnnl_memory_desc_t *md, int64_t b, int64_t rows, int64_t cols, int trans, dnnl_data_type_t type,
                       int64_t ld) {
  const int64_t row = ld ? ld : trans ? rows : cols;
  dnnl_dims_t dims = {b, rows, cols};
  dnnl_dims_t strides = {(trans ? cols : rows) * row, trans ? 1 : row, trans ? row : 1};
  return dnnl_memory_desc_init_by_strides(md, 3, dims, type, strides) == dnnl_success;
}
static int describe(dnnl_memory_desc_t *md, int64_t b, int64_t rows, int64_t cols, int trans, dnnl_data_type_t type) {
  return describe_ld(md, b, rows, cols, trans, type, 0);
}
/* The weights and output of g: a column part reads B's columns (rows when transposed: packed) and writes out's
   columns of a wider product. */
static int describe_wei(dnnl_memory_desc_t *md, const geometry *g, dnnl_data_type_t type) {
  return describe_ld(md, g->batchB, g->K, g->N, g->tb, type, g->tb ? 0 : g->ld);
}
static int describe_dst(dnnl_memory_desc_t *md, const geometry *g) { return describe_ld(md, g->batch, g->M, g->N, 0, dnnl_f32, g->ld); }

static dnnl_data_type_t operand_type(const geometry *g) { return g->f32 ? dnnl_f32 : dnnl_bf16; }

static dnnl_primitive_t create_primitive(const geometry *g, size_t *scratchpad_bytes) {
  dnnl_memory_desc_t src, wei, dst;
  const dnnl_data_type_t type = operand_type(g);
  if (!describe(&src, g->batchA, g->M, g->K, g->ta, type) || !describe_wei(&wei, g, type) || !describe_dst(&dst, g))
    return NULL;
  dnnl_matmul_desc_t desc;
  if (dnnl_matmul_desc_init(&desc, &src, &wei, NULL, &dst) != dnnl_success) return NULL;
  /* A column part runs beside the others on its own thread: it gets its own scratchpad buffer rather than the
     library's, which is per calling thread and would be allocated afresh in every short-lived worker. */
  dnnl_primitive_attr_t attr = NULL;
  if (g->ld && (dnnl_primitive_attr_create(&attr) != dnnl_success ||
                dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user) != dnnl_success)) {
    if (attr) dnnl_primitive_attr_destroy(attr);
    return NULL;
  }
  dnnl_primitive_desc_t pd;
  const int made = dnnl_primitive_desc_create(&pd, &desc, attr, engine, NULL) == dnnl_success;
  if (attr) dnnl_primitive_attr_destroy(attr);
  if (!made) return NULL;
  const dnnl_memory_desc_t *pad = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
  *scratchpad_bytes = pad ? dnnl_memory_desc_get_size(pad) : 0;
  dnnl_primitive_t prim = NULL;
  if (dnnl_primitive_create(&prim, pd) != dnnl_success) prim = NULL;
  dnnl_primitive_desc_destroy(pd);
  return prim;
}

static int64_t primitives_created = 0;

static cached_primitive *find_primitive(const geometry *g) {
  for (int i = 0; i < CACHE_SLOTS; i++)
    if (cache[i].used && memcmp(&cache[i].g, g, sizeof *g) == 0) return &cache[i];
  size_t scratchpad_bytes = 0;
  dnnl_primitive_t prim = create_primitive(g, &scratchpad_bytes);
  if (!prim) return NULL;
  primitives_created++;
  cached_primitive *slot = &cache[next_victim];
  next_victim = (next_victim + 1) % CACHE_SLOTS;
  if (slot->used) dnnl_primitive_destroy(slot->prim);
  memset(slot, 0, sizeof *slot);
  slot->g = *g;
  slot->prim = prim;
  slot->scratchpad_bytes = scratchpad_bytes;
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
  describe_wei(&wei, g, type);
  describe_dst(&dst, g);
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

/*
 * A large bf16 product split by columns over the cores, one oneDNN thread per part. At the 0.5B step's 508 rows,
 * oneDNN's own two threads ran its bf16 products 20-39% slower than two one-thread processes each multiplying half
 * the columns (docs/benchmarks.md, Zen 5): half a core went to splitting inside the library. Each part runs on its own
 * stream with its own scratchpad buffer, kept between calls, and its thread's OpenMP team held to one.
 * ROLLOUT_LAB_BF16_SPLIT=0 turns it off (before/after benches).
 */
#define SPLIT_MIN_WORK (1LL << 27) /* M*N*K; the k/v and LoRA products are thin and never reach oneDNN bf16 */
#define SPLIT_ALIGN 64             /* part widths in whole cache lines of out's rows */
#define MAX_PARTS 8
extern void omp_set_num_threads(int);
extern int omp_get_max_threads(void);

static dnnl_stream_t part_stream[MAX_PARTS];
static void *part_scratch[MAX_PARTS];
static size_t part_scratch_len[MAX_PARTS];
static int split_enabled = -1; /* -1: ROLLOUT_LAB_BF16_SPLIT not read yet */

typedef struct {
  geometry g[MAX_PARTS];
  cached_primitive *slot[MAX_PARTS];
  const uint16_t *a, *b;
  float *out;
  int64_t first_col[MAX_PARTS];
  int ok[MAX_PARTS];
} split_t;

static int run_part(split_t *s, int p) {
  const geometry *g = &s->g[p];
  const int64_t j0 = s->first_col[p];
  dnnl_memory_desc_t src, wei, dst, pad;
  describe(&src, g->batchA, g->M, g->K, g->ta, dnnl_bf16);
  describe_wei(&wei, g, dnnl_bf16);
  describe_dst(&dst, g);
  const dnnl_dims_t pad_dims = {(dnnl_dim_t)s->slot[p]->scratchpad_bytes};
  dnnl_memory_t ms = NULL, mw = NULL, md = NULL, mp = NULL;
  /* B's columns j0.. start j0 values in (its rows j0.. when transposed: j0 * K); out's columns j0 values in. */
  int ok = dnnl_memory_create(&ms, &src, engine, (void *)s->a) == dnnl_success &&
           dnnl_memory_create(&mw, &wei, engine, (void *)(s->b + (g->tb ? j0 * g->K : j0))) == dnnl_success &&
           dnnl_memory_create(&md, &dst, engine, s->out + j0) == dnnl_success &&
           dnnl_memory_desc_init_by_tag(&pad, 1, pad_dims, dnnl_u8, dnnl_a) == dnnl_success &&
           dnnl_memory_create(&mp, &pad, engine, part_scratch[p]) == dnnl_success;
  if (ok) {
    dnnl_exec_arg_t args[4] = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, md}, {DNNL_ARG_SCRATCHPAD, mp}};
    ok = dnnl_primitive_execute(s->slot[p]->prim, part_stream[p], 4, args) == dnnl_success &&
         dnnl_stream_wait(part_stream[p]) == dnnl_success;
  }
  if (ms) dnnl_memory_destroy(ms);
  if (mw) dnnl_memory_destroy(mw);
  if (md) dnnl_memory_destroy(md);
  if (mp) dnnl_memory_destroy(mp);
  return ok;
}

static void run_parts(void *ctx, int64_t first, int64_t last) {
  split_t *s = (split_t *)ctx;
  const int team = omp_get_max_threads();
  omp_set_num_threads(1);
  for (int64_t p = first; p < last; p++) s->ok[p] = run_part(s, (int)p);
  omp_set_num_threads(team); /* the calling thread runs part 0: its later products get their team back */
}

/* 1 when g was run split (out written), 0 when it is not a product to split or a part could not be prepared, -1 when
   a part failed. Called with `lock` held, like everything here, which is why its bookkeeping can be static. */
static int execute_split(const geometry *g, const uint16_t *a, const uint16_t *b, float *out, int64_t encode_ns) {
  if (split_enabled < 0) {
    const char *v = getenv("ROLLOUT_LAB_BF16_SPLIT");
    split_enabled = !(v && strcmp(v, "0") == 0);
  }
  int parts = gemm_threads() < MAX_PARTS ? gemm_threads() : MAX_PARTS;
  if (!split_enabled || g->f32 || g->batch != 1 || parts < 2 || g->M * g->N * g->K < SPLIT_MIN_WORK) return 0;
  int64_t width = (g->N + parts - 1) / parts;
  width = (width + SPLIT_ALIGN - 1) / SPLIT_ALIGN * SPLIT_ALIGN;
  if (width >= g->N) return 0;
  parts = (int)((g->N + width - 1) / width);
  const int64_t t0 = now_ns();
  static split_t s;
  memset(&s, 0, sizeof s);
  s.a = a, s.b = b, s.out = out;
  /* Everything shared is prepared here, on the calling thread: the primitive cache is not thread-safe. */
  for (int p = 0; p < parts; p++) {
    s.first_col[p] = p * width;
    s.g[p] = *g;
    s.g[p].N = g->N - s.first_col[p] < width ? g->N - s.first_col[p] : width;
    s.g[p].ld = g->N;
    s.slot[p] = find_primitive(&s.g[p]);
    if (!s.slot[p]) return 0;
    if (!part_stream[p] && dnnl_stream_create(&part_stream[p], engine, dnnl_stream_default_flags) != dnnl_success) {
      part_stream[p] = NULL;
      return 0;
    }
    const size_t need = s.slot[p]->scratchpad_bytes > 0 ? s.slot[p]->scratchpad_bytes : 1;
    if (need > part_scratch_len[p]) {
      free(part_scratch[p]);
      part_scratch[p] = aligned_alloc(64, (need + 63) / 64 * 64);
      part_scratch_len[p] = part_scratch[p] ? need : 0;
      if (!part_scratch[p]) return 0;
    }
  }
  parallel_for(parts, parts, run_parts, &s);
  for (int p = 0; p < parts; p++)
    if (!s.ok[p]) return -1;
  /* Counted once, on the first part's slot, as the whole product (gemm_onednn_stats reports its full width). */
  s.slot[0]->calls++;
  s.slot[0]->parts = parts;
  s.slot[0]->encode_ns += encode_ns;
  s.slot[0]->exec_ns += now_ns() - t0;
  return 1;
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
  /* A split that could not run (or whose part failed: out is then rewritten whole) leaves it to oneDNN's threads. */
  return execute_split(g, a16, b16, out, now_ns() - t0) > 0 || execute(g, a16, b16, out, now_ns() - t0);
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
                           "\"encodeMs\":%.2f,\"execMs\":%.2f,\"columnParts\":%d}",
                           first ? "" : ",", c->g.f32 ? "fp32" : "bf16", (long long)c->g.batch, (long long)c->g.M,
                           (long long)(c->g.ld ? c->g.ld : c->g.N), (long long)c->g.K, c->g.ta, c->g.tb, (long long)c->calls,
                           c->encode_ns / 1e6, c->exec_ns / 1e6, c->parts > 1 ? c->parts : 1);
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
