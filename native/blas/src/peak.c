/*
 * The CPU's measured arithmetic peak per vector unit, for benchmarks to print beside achieved GFLOP/s. A peak worked
 * out from /proc/cpuinfo's clock is wrong on a VM: it reports the base clock (2.1 GHz on the Zen 5 here) while the
 * cores run boosted (measured with this file: 3.3-3.6 GHz, so the true peaks are 1.6-1.7x the nominal ones).
 *
 * Each thread runs twelve independent accumulator chains of one instruction (vfmadd on 256 or 512 bits, vdpbf16ps on
 * 512) for a fixed count, so the units stay busy whatever their latency (4-6 cycles here, 2 pipes); registers are
 * named one by one because an array of twelve vectors gets spilled to memory by GCC and measures the stores instead.
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime under -std=c11 */
#include "peak.h"

#include <string.h>
#include <time.h>

#include "isa.h"
#include "parallel.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
#define PEAK_X86 1
#endif

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

/* In each loop below, the empty asm statement claims to read and write every accumulator, so no chain is folded,
   hoisted or dropped. */
#define TWELVE(op) op(c0) op(c1) op(c2) op(c3) op(c4) op(c5) op(c6) op(c7) op(c8) op(c9) op(c10) op(c11)

#ifdef PEAK_X86
__attribute__((target("avx2,fma"))) static float chains_avx2(int64_t iterations) {
  __m256 c0 = _mm256_setzero_ps(), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0, c6 = c0, c7 = c0, c8 = c0, c9 = c0,
         c10 = c0, c11 = c0;
  const __m256 x = _mm256_set1_ps(0.999f), y = _mm256_set1_ps(1e-3f);
  for (int64_t i = 0; i < iterations; i++) {
#define STEP(c) c = _mm256_fmadd_ps(c, x, y);
    TWELVE(STEP)
#undef STEP
    __asm__ volatile("" : "+v"(c0), "+v"(c1), "+v"(c2), "+v"(c3), "+v"(c4), "+v"(c5), "+v"(c6), "+v"(c7), "+v"(c8),
                     "+v"(c9), "+v"(c10), "+v"(c11));
  }
  float s[8];
  _mm256_storeu_ps(s, _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(c0, c1), _mm256_add_ps(c2, c3)),
                                    _mm256_add_ps(_mm256_add_ps(c4, c5), _mm256_add_ps(_mm256_add_ps(c6, c7),
                                                                                     _mm256_add_ps(_mm256_add_ps(c8, c9), _mm256_add_ps(c10, c11))))));
  return s[0];
}

__attribute__((target("avx512f"))) static float chains_avx512(int64_t iterations) {
  __m512 c0 = _mm512_setzero_ps(), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0, c6 = c0, c7 = c0, c8 = c0, c9 = c0,
         c10 = c0, c11 = c0;
  const __m512 x = _mm512_set1_ps(0.999f), y = _mm512_set1_ps(1e-3f);
  for (int64_t i = 0; i < iterations; i++) {
#define STEP(c) c = _mm512_fmadd_ps(c, x, y);
    TWELVE(STEP)
#undef STEP
    __asm__ volatile("" : "+v"(c0), "+v"(c1), "+v"(c2), "+v"(c3), "+v"(c4), "+v"(c5), "+v"(c6), "+v"(c7), "+v"(c8),
                     "+v"(c9), "+v"(c10), "+v"(c11));
  }
  return _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(_mm512_add_ps(c0, c1), _mm512_add_ps(c2, c3)),
                                            _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(c4, c5), _mm512_add_ps(c6, c7)),
                                                          _mm512_add_ps(_mm512_add_ps(c8, c9), _mm512_add_ps(c10, c11)))));
}

__attribute__((target("avx512f,avx512bf16"))) static float chains_avx512_bf16(int64_t iterations) {
  __m512 c0 = _mm512_setzero_ps(), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0, c6 = c0, c7 = c0, c8 = c0, c9 = c0,
         c10 = c0, c11 = c0;
  const __m512bh x = (__m512bh)_mm512_set1_epi16(0x3f80), y = (__m512bh)_mm512_set1_epi16(0x3a83); /* 1, ~1e-3 */
  for (int64_t i = 0; i < iterations; i++) {
#define STEP(c) c = _mm512_dpbf16_ps(c, x, y);
    TWELVE(STEP)
#undef STEP
    __asm__ volatile("" : "+v"(c0), "+v"(c1), "+v"(c2), "+v"(c3), "+v"(c4), "+v"(c5), "+v"(c6), "+v"(c7), "+v"(c8),
                     "+v"(c9), "+v"(c10), "+v"(c11));
  }
  return _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(_mm512_add_ps(c0, c1), _mm512_add_ps(c2, c3)),
                                            _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(c4, c5), _mm512_add_ps(c6, c7)),
                                                          _mm512_add_ps(_mm512_add_ps(c8, c9), _mm512_add_ps(c10, c11)))));
}
#endif

typedef float (*chains_fn)(int64_t iterations);

typedef struct {
  chains_fn fn;
  int64_t iterations;
  double seconds[PEAK_MAX_THREADS];
  volatile float sink;
} peak_run;

static void run_range(void *ctx, int64_t first, int64_t last) {
  peak_run *r = (peak_run *)ctx;
  for (int64_t t = first; t < last; t++) {
    const double t0 = now_s();
    r->sink += r->fn(r->iterations);
    r->seconds[t] = now_s() - t0;
  }
}

double peak_gflops(const char *unit, int threads, int64_t iterations) {
#ifdef PEAK_X86
  chains_fn fn = NULL;
  double flops_per_op = 0; /* per instruction: lanes x 2 (multiply and add), x 2 again for bf16's pair of products */
  if (strcmp(unit, "avx2 fp32") == 0 && isa_supported() >= ISA_AVX2) fn = chains_avx2, flops_per_op = 16;
  if (strcmp(unit, "avx512 fp32") == 0 && isa_supported() >= ISA_AVX512) fn = chains_avx512, flops_per_op = 32;
  if (strcmp(unit, "avx512_bf16") == 0 && isa_supported() >= ISA_AVX512 && __builtin_cpu_supports("avx512bf16"))
    fn = chains_avx512_bf16, flops_per_op = 64;
  if (!fn || threads < 1 || threads > PEAK_MAX_THREADS || iterations < 1) return -1;
  peak_run r = {.fn = fn, .iterations = iterations};
  parallel_for(threads, threads, run_range, &r);
  /* Every thread did the same work; the slowest one bounds what they did together. */
  double slowest = 0;
  for (int t = 0; t < threads; t++) slowest = r.seconds[t] > slowest ? r.seconds[t] : slowest;
  return slowest > 0 ? threads * (double)iterations * 12 * flops_per_op / slowest / 1e9 : -1;
#else
  (void)unit, (void)threads, (void)iterations;
  return -1;
#endif
}
