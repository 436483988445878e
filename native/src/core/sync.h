/* sync.h: the one mutex and condition variable type the core needs, per OS.
 *
 * Statically initialised so that no init call has to run before the first pt_* call
 * (there is no library constructor we can rely on: Bun skips dlopened libraries'
 * destructors, and constructors run in loader order we do not control).
 */
#ifndef PT_SYNC_H
#define PT_SYNC_H
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
#endif
#endif
