/* pool.h: a small persistent thread pool for the CPU kernels.
 *
 * cpu_parallel_for splits [0, n) into contiguous chunks of at least `grain` items and runs
 * fn on them across the machine's cores, the calling thread included; it returns when all
 * chunks are done. Calls from several threads at once are serialised. fn must not call
 * cpu_parallel_for itself (nested calls run inline).
 */
#ifndef PT_CPU_POOL_H
#define PT_CPU_POOL_H
#include <stddef.h>

typedef void (*cpu_range_fn)(void *ctx, size_t begin, size_t end);
void cpu_parallel_for(size_t n, size_t grain, cpu_range_fn fn, void *ctx);
int cpu_thread_count(void);
void cpu_pool_shutdown(void);

#endif
