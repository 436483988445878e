/* sync.h: the mutex, condition variable and thread types the core needs, per OS.
 *
 * Statically initialised so that no init call has to run before the first pt_* call
 * (there is no library constructor we can rely on: Bun skips dlopened libraries'
 * destructors, and constructors run in loader order we do not control).
 */
#ifndef PT_SYNC_H
#define PT_SYNC_H
#include <stdint.h>
#include <stdlib.h>
#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
typedef SRWLOCK pt_mutex;
typedef CONDITION_VARIABLE pt_cond;
#define PT_MUTEX_INIT SRWLOCK_INIT
#define PT_COND_INIT CONDITION_VARIABLE_INIT
static inline void pt_mutex_lock(pt_mutex *m) { AcquireSRWLockExclusive(m); }
static inline void pt_mutex_unlock(pt_mutex *m) { ReleaseSRWLockExclusive(m); }
static inline void pt_cond_wait(pt_cond *c, pt_mutex *m) { SleepConditionVariableSRW(c, m, INFINITE, 0); }
static inline void pt_cond_broadcast(pt_cond *c) { WakeAllConditionVariable(c); }
static inline int pt_mutex_trylock(pt_mutex *m) { return TryAcquireSRWLockExclusive(m) != 0; }
typedef HANDLE pt_thread;
typedef struct { void (*fn)(void *); void *arg; } pt_thread_start_;
static inline DWORD WINAPI pt_thread_main_(LPVOID p) {
  pt_thread_start_ s = *(pt_thread_start_ *)p;
  HeapFree(GetProcessHeap(), 0, p);
  s.fn(s.arg);
  return 0;
}
/* 1 when the thread runs fn(arg), 0 when it could not be made. */
static inline int pt_thread_start(pt_thread *t, void (*fn)(void *), void *arg) {
  pt_thread_start_ *s = HeapAlloc(GetProcessHeap(), 0, sizeof *s);
  if (!s) return 0;
  s->fn = fn;
  s->arg = arg;
  if ((*t = CreateThread(NULL, 0, pt_thread_main_, s, 0, NULL)) != NULL) return 1;
  HeapFree(GetProcessHeap(), 0, s);
  return 0;
}
static inline void pt_thread_join(pt_thread t) { WaitForSingleObject(t, INFINITE); CloseHandle(t); }
#else
#include <pthread.h>
typedef pthread_mutex_t pt_mutex;
typedef pthread_cond_t pt_cond;
#define PT_MUTEX_INIT PTHREAD_MUTEX_INITIALIZER
#define PT_COND_INIT PTHREAD_COND_INITIALIZER
static inline void pt_mutex_lock(pt_mutex *m) { pthread_mutex_lock(m); }
static inline void pt_mutex_unlock(pt_mutex *m) { pthread_mutex_unlock(m); }
static inline void pt_cond_wait(pt_cond *c, pt_mutex *m) { pthread_cond_wait(c, m); }
static inline void pt_cond_broadcast(pt_cond *c) { pthread_cond_broadcast(c); }
static inline int pt_mutex_trylock(pt_mutex *m) { return pthread_mutex_trylock(m) == 0; }
typedef pthread_t pt_thread;
typedef struct { void (*fn)(void *); void *arg; } pt_thread_start_;
static inline void *pt_thread_main_(void *p) {
  pt_thread_start_ s = *(pt_thread_start_ *)p;
  free(p);
  s.fn(s.arg);
  return NULL;
}
/* 1 when the thread runs fn(arg), 0 when it could not be made. */
static inline int pt_thread_start(pt_thread *t, void (*fn)(void *), void *arg) {
  pt_thread_start_ *s = malloc(sizeof *s);
  if (!s) return 0;
  s->fn = fn;
  s->arg = arg;
  if (pthread_create(t, NULL, pt_thread_main_, s) == 0) return 1;
  free(s);
  return 0;
}
static inline void pt_thread_join(pt_thread t) { pthread_join(t, NULL); }
#endif
/* A monotonic clock in nanoseconds, for bounded spin-waits (defined in ring.c). */
uint64_t pt_now_ns(void);
/* A hint inside a spin-wait loop. */
static inline void pt_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}
#endif
