/* skinny.c for baseline x86-64 (and every other CPU): see isa.h. */
#define ISA_SUFFIX _baseline
#include "isa_rename.h"
#include "skinny.c"
