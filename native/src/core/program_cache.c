/* program_cache.c: compiled program images cached in memory and on disk, for every driver.
 *
 * Ownership and ordering. Images are keyed by a 64-bit FNV-1a hash that the driver chains
 * over everything that decides the image (source, target, compiler and driver versions,
 * options). The memory cache lives for the process, so a device reopen compiles nothing;
 * pt_cache_mem_get returns a malloc'd copy that the caller frees. Disk entries live under
 * PT_CACHE_DIR, else the user's cache directory (XDG_CACHE_HOME, ~/.cache, LOCALAPPDATA),
 * as <hash><suffix>; each is written to a temporary file and renamed, so readers never see
 * half a file, and carries its key, length and checksum: one that is short, corrupt or
 * someone else's reads as absent and is rebuilt. Every function is thread-safe.
 */
#define _DEFAULT_SOURCE
#define _DARWIN_C_SOURCE
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "program_cache.h"
#include "sync.h"
#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <direct.h>
#else
#include <sys/stat.h>
#include <unistd.h>
#endif

#define MEM_CACHE_CAP (64u << 20) /* bytes of images kept in memory */
#define DISK_MAX (256u << 20)

uint64_t pt_cache_hash(uint64_t h, const void *p, size_t n) {
  const unsigned char *s = p;
  for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 0x100000001b3ULL;
  return h;
}

/* ---- memory cache --------------------------------------------------------------------- */

typedef struct image { uint64_t key; size_t n; struct image *next; unsigned char data[]; } image;
static pt_mutex cache_lock = PT_MUTEX_INIT;
static image *table[256];
static size_t table_bytes;

unsigned char *pt_cache_mem_get(uint64_t key, size_t *n) { /* returns a malloc'd copy */
  unsigned char *out = NULL;
  pt_mutex_lock(&cache_lock);
  for (image *e = table[key & 255]; e; e = e->next)
    if (e->key == key && (out = malloc(e->n))) { memcpy(out, e->data, e->n); *n = e->n; break; }
  pt_mutex_unlock(&cache_lock);
  return out;
}

void pt_cache_mem_put(uint64_t key, const unsigned char *data, size_t n) {
  pt_mutex_lock(&cache_lock);
  image *e = NULL;
  for (e = table[key & 255]; e && e->key != key; e = e->next) {}
  if (!e && table_bytes + n <= MEM_CACHE_CAP && (e = malloc(sizeof *e + n))) {
    e->key = key;
    e->n = n;
    memcpy(e->data, data, n);
    e->next = table[key & 255];
    table[key & 255] = e;
    table_bytes += n;
  }
  pt_mutex_unlock(&cache_lock);
}

/* ---- disk cache ----------------------------------------------------------------------- */

typedef struct { char magic[8]; uint64_t key, n, sum; } file_head;

static int cache_dir(char *out, size_t cap) {
  const char *v;
#ifdef _WIN32
  const char *sep = "\\";
#else
  const char *sep = "/";
#endif
  int w = -1;
  if ((v = getenv("PT_CACHE_DIR")) && *v) w = snprintf(out, cap, "%s", v);
#ifdef _WIN32
  else if ((v = getenv("LOCALAPPDATA")) && *v) w = snprintf(out, cap, "%s%spolytensor", v, sep);
#else
  else if ((v = getenv("XDG_CACHE_HOME")) && *v) w = snprintf(out, cap, "%s%spolytensor", v, sep);
  else if ((v = getenv("HOME")) && *v) w = snprintf(out, cap, "%s%s.cache%spolytensor", v, sep, sep);
#endif
  if (w <= 0 || (size_t)w >= cap) return 0;
  for (char *p = out + 1; *p; p++) { /* mkdir -p; failures show up when the file is written */
    if (*p != '/' && *p != '\\') continue;
    char keep = *p;
    *p = 0;
#ifdef _WIN32
    _mkdir(out);
#else
    mkdir(out, 0755);
#endif
    *p = keep;
  }
#ifdef _WIN32
  _mkdir(out);
#else
  mkdir(out, 0755);
#endif
  return 1;
}

int pt_cache_path(char *out, size_t cap, uint64_t key, const char *suffix) {
  char dir[700];
  if (!cache_dir(dir, sizeof dir)) return 0;
  int w = snprintf(out, cap, "%s/%016llx%s", dir, (unsigned long long)key, suffix);
  return w > 0 && (size_t)w < cap;
}

unsigned char *pt_cache_disk_get(uint64_t key, const char *suffix, size_t *n) {
  char path[800];
  if (!pt_cache_path(path, sizeof path, key, suffix)) return NULL;
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  file_head h;
  unsigned char *data = NULL;
  if (fread(&h, sizeof h, 1, f) == 1 && memcmp(h.magic, "PTCACHE1", 8) == 0 && h.key == key && h.n > 0 && h.n <= DISK_MAX &&
      (data = malloc((size_t)h.n)) && fread(data, 1, (size_t)h.n, f) == h.n && pt_cache_hash(PT_CACHE_SEED, data, (size_t)h.n) == h.sum) {
    *n = (size_t)h.n;
  } else {
    free(data); /* short, corrupt or someone else's: rebuilt and rewritten */
    data = NULL;
  }
  fclose(f);
  return data;
}

void pt_cache_disk_put(uint64_t key, const char *suffix, const unsigned char *data, size_t n) {
  static atomic_uint counter;
  char path[800], tmp[840];
  if (!pt_cache_path(path, sizeof path, key, suffix)) return;
#ifdef _WIN32
  unsigned long pid = GetCurrentProcessId();
#else
  unsigned long pid = (unsigned long)getpid();
#endif
  snprintf(tmp, sizeof tmp, "%s.%lu.%u.tmp", path, pid, atomic_fetch_add(&counter, 1));
  FILE *f = fopen(tmp, "wb");
  if (!f) return; /* no cache dir: every process compiles, nothing breaks */
  file_head h = {{'P', 'T', 'C', 'A', 'C', 'H', 'E', '1'}, key, n, pt_cache_hash(PT_CACHE_SEED, data, n)};
  int ok = fwrite(&h, sizeof h, 1, f) == 1 && fwrite(data, 1, n, f) == n;
  ok = fclose(f) == 0 && ok;
#ifdef _WIN32
  if (!ok || !MoveFileExA(tmp, path, MOVEFILE_REPLACE_EXISTING)) remove(tmp);
#else
  if (!ok || rename(tmp, path) != 0) remove(tmp);
#endif
}

