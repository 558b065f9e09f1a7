/* Measured arithmetic peak of the CPU's vector units (peak.c says why it is measured, not computed). */
#ifndef ROLLOUT_LAB_PEAK_H
#define ROLLOUT_LAB_PEAK_H
#include <stdint.h>

#define PEAK_MAX_THREADS 256

/*
 * GFLOP/s of `threads` threads each issuing `iterations` x 12 independent instructions of `unit`: "avx2 fp32"
 * (256-bit FMA), "avx512 fp32" (512-bit FMA) or "avx512_bf16" (vdpbf16ps), counted as a matrix product counts
 * (a multiply and an add per product). -1 when this CPU or build lacks the unit, or the arguments are out of range.
 */
double peak_gflops(const char *unit, int threads, int64_t iterations);

#endif
