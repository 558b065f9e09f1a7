/*
 * The unsuffixed kernel entry points: each forwards to the copy for the active instruction set (isa.h says why).
 * The table is chosen once at load (a constructor reading the CPU and ROLLOUT_LAB_ISA) and by isa_select().
 */
#include "isa.h"

#include <stdlib.h>
#include <string.h>

#include "bf16.h"
#include "fused.h"
#include "skinny.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define ISA_MULTI 1
#else
#define ISA_MULTI 0
#endif

/* Every dispatched kernel: X(return type, name, parameters, arguments); XV for those returning void. */
#define KERNELS(X, XV)                                                                                                     \
  XV(rmsnorm_fwd, (const float *x, const float *w, int64_t R, int64_t D, float eps, float *y), (x, w, R, D, eps, y))      \
  XV(rmsnorm_bwd, (const float *dy, const float *x, const float *w, int64_t R, int64_t D, float eps, float *dx, float *dw), \
     (dy, x, w, R, D, eps, dx, dw))                                                                                        \
  X(int, rope_apply,                                                                                                       \
    (const float *x, const int32_t *pos, const float *cos_t, const float *sin_t, int64_t maxPos, int64_t R, int64_t heads, \
     int64_t hd, int sign, float *y),                                                                                      \
    (x, pos, cos_t, sin_t, maxPos, R, heads, hd, sign, y))                                                                 \
  XV(swiglu_fwd, (const float *g, const float *u, int64_t n, float *y), (g, u, n, y))                                      \
  XV(swiglu_bwd, (const float *dy, const float *g, const float *u, int64_t n, float *dg, float *du), (dy, g, u, n, dg, du)) \
  XV(attn_fwd,                                                                                                             \
     (const float *q, const float *k, const float *v, const float *keyMask, int64_t B, int64_t T, int64_t Tk, int64_t H,   \
      int64_t KV, int64_t hd, int64_t past, float scale, float *out, float *p),                                            \
     (q, k, v, keyMask, B, T, Tk, H, KV, hd, past, scale, out, p))                                                         \
  XV(attn_bwd,                                                                                                             \
     (const float *dout, const float *q, const float *k, const float *v, const float *p, int64_t B, int64_t T, int64_t Tk, \
      int64_t H, int64_t KV, int64_t hd, float scale, float *dq, float *dk, float *dv),                                    \
     (dout, q, k, v, p, B, T, Tk, H, KV, hd, scale, dq, dk, dv))                                                           \
  X(int, logprob_fwd, (const float *logits, const int32_t *target, int64_t N, int64_t V, float *out),                      \
    (logits, target, N, V, out))                                                                                           \
  XV(logprob_bwd, (const float *logits, const int32_t *target, const float *dout, int64_t N, int64_t V, float *dlogits),   \
     (logits, target, dout, N, V, dlogits))                                                                                \
  XV(adamw_step,                                                                                                           \
     (const float *p, const float *m, const float *v, const float *g, int64_t n, const adamw_params *hp, float *p2,        \
      float *m2, float *v2),                                                                                               \
     (p, m, v, g, n, hp, p2, m2, v2))                                                                                      \
  XV(adamw_step_inplace, (float *p, float *m, float *v, const float *g, int64_t n, const adamw_params *hp),                \
     (p, m, v, g, n, hp))                                                                                                  \
  XV(adamw_step_inplace_bf16,                                                                                              \
     (float *p, float *m, float *v, const float *g, int64_t n, const adamw_params *hp, uint16_t *p16),                    \
     (p, m, v, g, n, hp, p16))                                                                                             \
  XV(adamw8_step,                                                                                                          \
     (const float *p, const float *g, int64_t n, const adamw_params *hp, const int8_t *mq, const float *ms,                 \
      const uint8_t *vq, const float *vs, float *p2, int8_t *mq2, float *ms2, uint8_t *vq2, float *vs2),                   \
     (p, g, n, hp, mq, ms, vq, vs, p2, mq2, ms2, vq2, vs2))                                                                \
  XV(adamw8_decode, (const int8_t *mq, const float *ms, const uint8_t *vq, const float *vs, int64_t n, float *m, float *v), \
     (mq, ms, vq, vs, n, m, v))                                                                                            \
  XV(adamw8_encode, (const float *m, const float *v, int64_t n, int8_t *mq, float *ms, uint8_t *vq, float *vs),            \
     (m, v, n, mq, ms, vq, vs))                                                                                            \
  X(double, sum_squares, (const float *x, int64_t n), (x, n))                                                              \
  XV(bf16_encode, (const float *x, int64_t n, uint16_t *out), (x, n, out))                                                 \
  XV(bf16_decode, (const uint16_t *x, int64_t n, float *out), (x, n, out))                                                 \
  XV(bf16_matmul, (const float *x, const uint16_t *w, int64_t M, int64_t K, int64_t N, int transW, float *y),              \
     (x, w, M, K, N, transW, y))                                                                                           \
  X(int, bf16_gather_rows, (const uint16_t *table, int64_t rows, int64_t D, const int32_t *ids, int64_t n, float *out),    \
    (table, rows, D, ids, n, out))                                                                                        \
  X(int, skinny_gemm,                                                                                                      \
    (const float *x, const float *w, int64_t M, int64_t K, int64_t N, int transW, int roundW, float beta, int threads,    \
     float *y),                                                                                                            \
    (x, w, M, K, N, transW, roundW, beta, threads, y))

/* Prototypes of each copy. */
#define DECLARE(suffix)                                                     \
  KERNELS(DECLARE_X_##suffix, DECLARE_XV_##suffix)
#define DECLARE_X_baseline(ret, name, params, args) ret name##_baseline params;
#define DECLARE_XV_baseline(name, params, args) void name##_baseline params;
#define DECLARE_X_avx2(ret, name, params, args) ret name##_avx2 params;
#define DECLARE_XV_avx2(name, params, args) void name##_avx2 params;
#define DECLARE_X_avx512(ret, name, params, args) ret name##_avx512 params;
#define DECLARE_XV_avx512(name, params, args) void name##_avx512 params;
DECLARE(baseline)
#if ISA_MULTI
DECLARE(avx2)
DECLARE(avx512)
#endif

/* The table type: one pointer per kernel. */
#define FIELD_X(ret, name, params, args) ret(*name) params;
#define FIELD_XV(name, params, args) void(*name) params;
typedef struct {
  KERNELS(FIELD_X, FIELD_XV)
} kernel_table;

#define ENTRY_X_baseline(ret, name, params, args) name##_baseline,
#define ENTRY_XV_baseline(name, params, args) name##_baseline,
static const kernel_table baseline_table = {KERNELS(ENTRY_X_baseline, ENTRY_XV_baseline)};
#if ISA_MULTI
#define ENTRY_X_avx2(ret, name, params, args) name##_avx2,
#define ENTRY_XV_avx2(name, params, args) name##_avx2,
#define ENTRY_X_avx512(ret, name, params, args) name##_avx512,
#define ENTRY_XV_avx512(name, params, args) name##_avx512,
static const kernel_table avx2_table = {KERNELS(ENTRY_X_avx2, ENTRY_XV_avx2)};
static const kernel_table avx512_table = {KERNELS(ENTRY_X_avx512, ENTRY_XV_avx512)};
#endif

static const kernel_table *active = &baseline_table;
static isa_level active_level = ISA_BASELINE;

/* The public names. */
#define FORWARD_X(ret, name, params, args) \
  ret name params { return active->name args; }
#define FORWARD_XV(name, params, args) \
  void name params { active->name args; }
KERNELS(FORWARD_X, FORWARD_XV)

isa_level isa_supported(void) {
#if ISA_MULTI
  __builtin_cpu_init();
  /* x86-64-v4 as GCC compiles it: AVX-512 F, BW, CD, DQ and VL (plus everything v3 needs). */
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512cd") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx2") &&
      __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi2"))
    return ISA_AVX512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi2") &&
      __builtin_cpu_supports("movbe") && __builtin_cpu_supports("f16c"))
    return ISA_AVX2;
#endif
  return ISA_BASELINE;
}

isa_level isa_active(void) { return active_level; }

int isa_select(isa_level level) {
  if (level < ISA_BASELINE || level > isa_supported()) return 0;
#if ISA_MULTI
  active = level == ISA_AVX512 ? &avx512_table : level == ISA_AVX2 ? &avx2_table : &baseline_table;
#else
  active = &baseline_table;
#endif
  active_level = level;
  return 1;
}

const char *isa_name(isa_level level) { return level == ISA_AVX512 ? "avx512" : level == ISA_AVX2 ? "avx2" : "baseline"; }

int isa_parse(const char *name) {
  if (!name) return -1;
  if (strcmp(name, "baseline") == 0) return ISA_BASELINE;
  if (strcmp(name, "avx2") == 0) return ISA_AVX2;
  if (strcmp(name, "avx512") == 0) return ISA_AVX512;
  return -1;
}

/* At load: ROLLOUT_LAB_ISA when it names a path this CPU has, else the widest it has. */
__attribute__((constructor)) static void isa_choose_at_load(void) {
  const int asked = isa_parse(getenv("ROLLOUT_LAB_ISA"));
  if (asked < 0 || !isa_select((isa_level)asked)) isa_select(isa_supported());
}
