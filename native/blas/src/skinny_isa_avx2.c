/* skinny.c for avx2: see isa.h. Empty where GCC's target pragmas are not available. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#pragma GCC target("arch=x86-64-v3")
#define ISA_SUFFIX _avx2
#include "isa_rename.h"
#include "skinny.c"
#endif
