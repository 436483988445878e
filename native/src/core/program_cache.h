/* program_cache.h: compiled program images cached in memory and on disk (program_cache.c
 * says how entries are keyed, stored and validated). Returned images are malloc'd copies.
 */
#ifndef PT_PROGRAM_CACHE_H
#define PT_PROGRAM_CACHE_H
#include <stddef.h>
#include <stdint.h>

#define PT_CACHE_SEED 0xcbf29ce484222325ULL
uint64_t pt_cache_hash(uint64_t h, const void *p, size_t n); /* FNV-1a, chained from PT_CACHE_SEED */
unsigned char *pt_cache_mem_get(uint64_t key, size_t *n);
void pt_cache_mem_put(uint64_t key, const unsigned char *data, size_t n);
unsigned char *pt_cache_disk_get(uint64_t key, const char *suffix, size_t *n);
void pt_cache_disk_put(uint64_t key, const char *suffix, const unsigned char *data, size_t n);
/* <cache dir>/<hash><suffix>, creating the directory; 0 when there is none. */
int pt_cache_path(char *out, size_t cap, uint64_t key, const char *suffix);

#endif
