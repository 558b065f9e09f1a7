/* A parallel loop over independent work units on plain pthreads, for kernels whose pieces are too small for
   OpenBLAS to thread well (attention heads, batched small GEMMs). */
#ifndef ROLLOUT_LAB_PARALLEL_H
#define ROLLOUT_LAB_PARALLEL_H
#include <stdint.h>

typedef void (*range_fn)(void *ctx, int64_t first, int64_t last);

/*
 * Calls fn(ctx, first, last) over [0, units) split into at most `threads` contiguous ranges, the calling thread
 * doing the first. OpenBLAS is held to one thread meanwhile, or 2 workers x 2 BLAS threads would oversubscribe
 * the cores. threads <= 1 runs everything on the calling thread.
 */
void parallel_for(int64_t units, int threads, range_fn fn, void *ctx);

#endif
