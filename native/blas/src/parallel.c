#include "parallel.h"

#include <cblas.h>
#include <pthread.h>

#define MAX_THREADS 16

typedef struct {
  range_fn fn;
  void *ctx;
  int64_t first, last;
} job_t;

static void *run_job(void *arg) {
  const job_t *j = (const job_t *)arg;
  j->fn(j->ctx, j->first, j->last);
  return NULL;
}

void parallel_for(int64_t units, int threads, range_fn fn, void *ctx) {
  int parts = threads < units ? threads : (int)units;
  if (parts > MAX_THREADS) parts = MAX_THREADS;
  if (parts <= 1) {
    if (units > 0) fn(ctx, 0, units);
    return;
  }
  const int blas_threads = openblas_get_num_threads();
  openblas_set_num_threads(1);
  pthread_t tid[MAX_THREADS];
  int running[MAX_THREADS] = {0};
  job_t jobs[MAX_THREADS];
  for (int p = 0; p < parts; p++) {
    jobs[p] = (job_t){fn, ctx, units * p / parts, units * (p + 1) / parts};
    if (p == 0) continue; /* the calling thread does part 0 */
    running[p] = pthread_create(&tid[p], NULL, run_job, &jobs[p]) == 0;
    if (!running[p]) run_job(&jobs[p]); /* could not start a thread: do the work here */
  }
  run_job(&jobs[0]);
  for (int p = 1; p < parts; p++)
    if (running[p]) pthread_join(tid[p], NULL);
  openblas_set_num_threads(blas_threads);
}
