/*
 * Instruction-set dispatch for the project's own kernels (fused.c, bf16.c, skinny.c). Each is compiled three times — baseline
 * x86-64 (SSE2), AVX2 + FMA (x86-64-v3) and AVX-512 (x86-64-v4, 512-bit vectors preferred) — with the public names
 * suffixed (isa_rename.h), and the unsuffixed names (isa.c) call the copy chosen at load: the widest the CPU has,
 * or the one ROLLOUT_LAB_ISA names (baseline | avx2 | avx512; a path the CPU lacks falls back to the widest it has).
 * One build runs on any x86-64 CPU. Elsewhere (or with clang) only the baseline copy exists.
 */
#ifndef ROLLOUT_LAB_ISA_H
#define ROLLOUT_LAB_ISA_H

typedef enum { ISA_BASELINE = 0, ISA_AVX2 = 1, ISA_AVX512 = 2 } isa_level;

/* Widest path this CPU (and this build) supports. */
isa_level isa_supported(void);
/* The path in use. */
isa_level isa_active(void);
/* Switches path (tests, benches); returns 0 and changes nothing when the CPU lacks it. Not thread-safe with kernels
   running: call between steps. */
int isa_select(isa_level level);
/* "baseline" | "avx2" | "avx512" */
const char *isa_name(isa_level level);
/* Parses a name as above; -1 when it is none of them. */
int isa_parse(const char *name);

#endif
