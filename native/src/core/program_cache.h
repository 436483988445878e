/* program_cache.h: compiled program images cached in memory and on disk, how a driver
 * loads one or builds it afresh, and where a program that does not compile is left.
 *
 * Ownership and ordering. program_cache.c says how entries are keyed, stored and validated;
 * every function is thread-safe. Returned images are malloc'd copies the caller frees. A
 * driver's program_create goes through pt_cache_image, which calls the driver back to load
 * and build under the driver's compile lock, and a compile failure through
 * pt_compile_failed, which writes the source and log beside the cache.
 */
#ifndef PT_PROGRAM_CACHE_H
#define PT_PROGRAM_CACHE_H
#include <stddef.h>
#include <stdint.h>
#include "blocks.h"
#include "sync.h"

#define PT_CACHE_SEED 0xcbf29ce484222325ULL
uint64_t pt_cache_hash(uint64_t h, const void *p, size_t n); /* FNV-1a, chained from PT_CACHE_SEED */
unsigned char *pt_cache_mem_get(uint64_t key, size_t *n);
void pt_cache_mem_put(uint64_t key, const unsigned char *data, size_t n);
unsigned char *pt_cache_disk_get(uint64_t key, const char *suffix, size_t *n);
void pt_cache_disk_put(uint64_t key, const char *suffix, const unsigned char *data, size_t n);
/* <cache dir>/<hash><suffix>, creating the directory; 0 when there is none. */
int pt_cache_path(char *out, size_t cap, uint64_t key, const char *suffix);
#define PT_LOG_EXCERPT 640 /* characters of a compiler's log that a message quotes: the message buffer is 1 KB */
/* A program that does not compile: writes src as <hash>-failed<ext> and the whole log as
 * <hash>-failed.log beside the cache, for whoever debugs the renderer, and returns PT_EINVAL
 * with the formatted head, where the two files are, and the log's first PT_LOG_EXCERPT. */
int pt_compile_failed(uint64_t key, const char *ext, const char *src, const char *log, const char *fmt, ...);
/* How a driver turns an image into its program, for pt_cache_image. */
typedef struct {
  int (*load)(void *arg, const unsigned char *img, size_t n); /* PT_OK once the device took img */
  int (*usable)(void *arg); /* after a cached image was refused: PT_OK, or why no image can load now (a lost context) */
  int (*build)(void *arg, unsigned char **img, size_t *n); /* a fresh image (malloc'd) */
} pt_image_ops;
/* Loads key's image: the memory cache's, else the disk cache's (<hash><suffix>), else a fresh
 * one built under lock (one compile at a time per driver). Only an image that loaded goes
 * into the memory cache, so a bad disk entry is met once and rebuilt; a fresh one goes to both. */
int pt_cache_image(uint64_t key, const char *suffix, pt_mutex *lock, const pt_image_ops *ops, void *arg);
/* The argument layout of the program being created on this thread (NULL: none). The core
 * sets it around a driver's program_create, so drivers pass plain keys: meanwhile every
 * function above keys by the layout class too (kind, views, buffers joined to the key), disk
 * entries carry the whole layout, and one read back for another layout, or truncated or
 * corrupt, is named on stderr (once per entry) and reads as absent: the driver recompiles and
 * its put rewrites the entry, so a mismatched image is never loaded. */
void pt_cache_set_layout(const pt_layout *l);

#endif
