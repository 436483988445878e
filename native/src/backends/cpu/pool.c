/* pool.c: the CPU kernels' persistent thread pool (see pool.h).
 *
 * One job at a time: a caller takes `call_lock` for the whole of cpu_parallel_for, posts
 * the job under `lock`, works on chunks itself, then waits until every chunk is done and
 * no worker is still inside the job, so the job (on the caller's stack) never outlives its
 * readers. Workers are created on first parallel use and live until cpu_pool_shutdown().
 */
#include "pool.h"
#include <stdlib.h>

#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
typedef SRWLOCK pt_mutex;
typedef CONDITION_VARIABLE pt_cond;
typedef HANDLE pt_thread;
#define PT_MUTEX_INIT SRWLOCK_INIT
#define PT_COND_INIT CONDITION_VARIABLE_INIT
static void mutex_lock(pt_mutex *m) { AcquireSRWLockExclusive(m); }
static void mutex_unlock(pt_mutex *m) { ReleaseSRWLockExclusive(m); }
static void cond_wait(pt_cond *c, pt_mutex *m) { SleepConditionVariableSRW(c, m, INFINITE, 0); }
static void cond_broadcast(pt_cond *c) { WakeAllConditionVariable(c); }
static void cond_signal(pt_cond *c) { WakeConditionVariable(c); }
static int core_count(void) {
  SYSTEM_INFO si;
  GetSystemInfo(&si);
  return (int)si.dwNumberOfProcessors;
}
#else
#include <pthread.h>
#include <unistd.h>
typedef pthread_mutex_t pt_mutex;
typedef pthread_cond_t pt_cond;
typedef pthread_t pt_thread;
#define PT_MUTEX_INIT PTHREAD_MUTEX_INITIALIZER
#define PT_COND_INIT PTHREAD_COND_INITIALIZER
static void mutex_lock(pt_mutex *m) { pthread_mutex_lock(m); }
static void mutex_unlock(pt_mutex *m) { pthread_mutex_unlock(m); }
static void cond_wait(pt_cond *c, pt_mutex *m) { pthread_cond_wait(c, m); }
static void cond_broadcast(pt_cond *c) { pthread_cond_broadcast(c); }
static void cond_signal(pt_cond *c) { pthread_cond_signal(c); }
static int core_count(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}
#endif

#define MAX_THREADS 256

typedef struct {
  cpu_range_fn fn;
  void *ctx;
  size_t n, chunk, nchunks, next, done;
} job_t;

static pt_mutex call_lock = PT_MUTEX_INIT; /* serialises callers and start/shutdown */
static pt_mutex lock = PT_MUTEX_INIT;      /* guards everything below */
static pt_cond wake = PT_COND_INIT;        /* workers: a job was posted or stop was set */
static pt_cond idle = PT_COND_INIT;        /* caller: a chunk finished or a worker left */
static job_t *job;
static int active, stop, nworkers, nthreads;
static pt_thread workers[MAX_THREADS];
static _Thread_local int in_pool; /* set on workers and while a caller runs a job */

/* Runs chunks of the current job until none are left; called and returns with `lock` held. */
static void drain(job_t *j) {
  while (j->next < j->nchunks) {
    size_t c = j->next++;
    mutex_unlock(&lock);
    size_t b = c * j->chunk, e = b + j->chunk < j->n ? b + j->chunk : j->n;
    j->fn(j->ctx, b, e);
    mutex_lock(&lock);
    j->done++;
  }
}

static void worker_loop(void) {
  in_pool = 1;
  mutex_lock(&lock);
  for (;;) {
    while (!stop && (!job || job->next >= job->nchunks)) cond_wait(&wake, &lock);
    if (stop) break;
    job_t *j = job;
    active++;
    drain(j);
    active--;
    cond_broadcast(&idle);
  }
  mutex_unlock(&lock);
}

#ifdef _WIN32
static DWORD WINAPI worker_main(LPVOID arg) { (void)arg; worker_loop(); return 0; }
static int thread_start(pt_thread *t) { *t = CreateThread(NULL, 0, worker_main, NULL, 0, NULL); return *t != NULL; }
static void thread_join(pt_thread t) { WaitForSingleObject(t, INFINITE); CloseHandle(t); }
#else
static void *worker_main(void *arg) { (void)arg; worker_loop(); return NULL; }
static int thread_start(pt_thread *t) { return pthread_create(t, NULL, worker_main, NULL) == 0; }
static void thread_join(pt_thread t) { pthread_join(t, NULL); }
#endif

static int configured_threads(void) {
  const char *env = getenv("PT_THREADS");
  long n = 0;
  if (env && *env) {
    char *end;
    n = strtol(env, &end, 10);
    if (*end) n = 0; /* not a number: ignore it */
  }
  if (n <= 0) n = core_count();
  return n > MAX_THREADS ? MAX_THREADS : (int)n;
}

/* With call_lock held. A thread that cannot be created just leaves the pool smaller. */
static void pool_start(void) {
  if (nthreads) return;
  int want = configured_threads();
  mutex_lock(&lock);
  stop = 0;
  mutex_unlock(&lock);
  nworkers = 0;
  while (nworkers < want - 1 && thread_start(&workers[nworkers])) nworkers++;
  __atomic_store_n(&nthreads, nworkers + 1, __ATOMIC_RELEASE);
}

/* Read without call_lock so that inventory calls never wait behind a running kernel. */
int cpu_thread_count(void) {
  int n = __atomic_load_n(&nthreads, __ATOMIC_ACQUIRE);
  return n ? n : configured_threads();
}

void cpu_parallel_for(size_t n, size_t grain, cpu_range_fn fn, void *ctx) {
  if (n == 0 || !fn) return;
  if (grain == 0) grain = 1;
  if (n <= grain || in_pool) { fn(ctx, 0, n); return; }
  mutex_lock(&call_lock);
  pool_start();
  if (nthreads <= 1) { mutex_unlock(&call_lock); fn(ctx, 0, n); return; }
  /* About four chunks per thread balances uneven chunks without much locking. */
  size_t per = n / ((size_t)nthreads * 4);
  job_t j = {fn, ctx, n, per > grain ? per : grain, 0, 0, 0};
  j.nchunks = n / j.chunk + (n % j.chunk != 0);
  in_pool = 1;
  mutex_lock(&lock);
  job = &j;
  /* Only as many workers as there are chunks beyond the caller's first: waking all of a
   * many-core pool for a job of two chunks costs more than the job (every worker contends
   * for `lock` and the caller waits for each to leave). */
  size_t helpers = j.nchunks - 1 < (size_t)nworkers ? j.nchunks - 1 : (size_t)nworkers;
  for (size_t i = 0; i < helpers; i++) cond_signal(&wake);
  drain(&j);
  while (j.done < j.nchunks || active > 0) cond_wait(&idle, &lock);
  job = NULL;
  mutex_unlock(&lock);
  in_pool = 0;
  mutex_unlock(&call_lock);
}

void cpu_pool_shutdown(void) {
  if (in_pool) return; /* from inside a job: the job's caller still needs the workers */
  mutex_lock(&call_lock);
  mutex_lock(&lock);
  stop = 1;
  cond_broadcast(&wake);
  mutex_unlock(&lock);
  for (int i = 0; i < nworkers; i++) thread_join(workers[i]);
  nworkers = 0;
  __atomic_store_n(&nthreads, 0, __ATOMIC_RELEASE);
  mutex_unlock(&call_lock);
}
