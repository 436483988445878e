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
 *
 * Layouts. While the core creates a program (pt_cache_set_layout), the key every function
 * uses is the driver's key chained with the program's layout class (kind, views, buffers),
 * so one source built for two layouts keeps two entries; the block ABI is left out of the
 * key, so entries from before a layout change are met and replaced, not left behind. A disk
 * entry stores the whole layout it was built for: file_head, then the image. One whose
 * layout differs from the request's, or that is truncated or corrupt, is named on stderr
 * once per entry and process ("polytensor: cached program <path> was built for layout X,
 * the request needs Y; recompiling") and reads as absent: the driver recompiles and its put
 * rewrites the entry. Outside a program's creation (a driver's pipeline cache) the layout is
 * none and entries are plain.
 */
#define _DEFAULT_SOURCE
#define _DARWIN_C_SOURCE
#include <stdarg.h>
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

static _Thread_local pt_layout request;
static _Thread_local int has_request;
static const pt_layout no_layout = {0, -1, 0, 0};

void pt_cache_set_layout(const pt_layout *l) {
  has_request = l != NULL;
  request = l ? *l : no_layout;
}

/* The key an entry lives under: the driver's, chained with the request's layout class. */
static uint64_t entry_key(uint64_t key) {
  if (!has_request) return key;
  const int32_t cls[3] = {request.kind, request.views, request.bufs};
  return pt_cache_hash(key, cls, sizeof cls);
}

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
  key = entry_key(key);
  pt_mutex_lock(&cache_lock);
  for (image *e = table[key & 255]; e; e = e->next)
    if (e->key == key && (out = malloc(e->n))) { memcpy(out, e->data, e->n); *n = e->n; break; }
  pt_mutex_unlock(&cache_lock);
  return out;
}

void pt_cache_mem_put(uint64_t key, const unsigned char *data, size_t n) {
  key = entry_key(key);
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

/* 48 bytes, host byte order: "PTCACHE2", entry key, image length, FNV-1a of the image, and
 * the layout the image was built for (abi, kind, views, bufs; kind -1: none). */
typedef struct { char magic[8]; uint64_t key, n, sum; int32_t abi, kind, views, bufs; } file_head;
static const char MAGIC[8] = {'P', 'T', 'C', 'A', 'C', 'H', 'E', '2'};

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

static int entry_path(char *out, size_t cap, uint64_t ekey, const char *suffix) {
  char dir[700];
  if (!cache_dir(dir, sizeof dir)) return 0;
  int w = snprintf(out, cap, "%s/%016llx%s", dir, (unsigned long long)ekey, suffix);
  return w > 0 && (size_t)w < cap;
}

int pt_cache_path(char *out, size_t cap, uint64_t key, const char *suffix) {
  return entry_path(out, cap, entry_key(key), suffix);
}

int pt_cache_image(uint64_t key, const char *suffix, pt_mutex *lock, const pt_image_ops *ops, void *arg) {
  size_t n = 0;
  int from_disk = 0, st;
  unsigned char *img = pt_cache_mem_get(key, &n);
  if (!img) from_disk = (img = pt_cache_disk_get(key, suffix, &n)) != NULL;
  if (img) {
    st = ops->load(arg, img, n);
    if (st == PT_OK && from_disk) pt_cache_mem_put(key, img, n);
    free(img);
    if (st == PT_OK) return PT_OK;
    if ((st = ops->usable(arg)) != PT_OK) return st; /* else stale or corrupt: built again */
  }
  pt_mutex_lock(lock);
  st = ops->build(arg, &img, &n);
  pt_mutex_unlock(lock);
  if (st != PT_OK) return st; /* build keeps nothing when it fails */
  if ((st = ops->load(arg, img, n)) == PT_OK) {
    pt_cache_mem_put(key, img, n);
    pt_cache_disk_put(key, suffix, img, n);
  }
  free(img);
  return st;
}

int pt_compile_failed(uint64_t key, const char *ext, const char *src, const char *log, const char *fmt, ...) {
  char head[480], name[40], p[800], at[800] = "";
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(head, sizeof head, fmt, ap);
  va_end(ap);
  snprintf(name, sizeof name, "-failed%s", ext);
  FILE *f;
  if (pt_cache_path(p, sizeof p, key, name) && (f = fopen(p, "wb"))) {
    fputs(src, f);
    fclose(f);
    if (!pt_cache_path(at, sizeof at, key, "-failed.log") || !(f = fopen(at, "wb"))) at[0] = 0;
    else {
      fputs(log, f);
      fclose(f);
    }
  }
  return pt_error(PT_EINVAL, "%s%s%s:\n%.*s%s", head, at[0] ? "; source and full log at " : "", at, PT_LOG_EXCERPT, log,
                  strlen(log) > PT_LOG_EXCERPT ? "..." : "");
}

/* Names a rejected entry on stderr, once per path and process (the rewrite makes a second
 * meeting unlikely; a full table just keeps reporting). */
static void reject(const char *path, const char *what) {
  static uint64_t seen[64];
  static unsigned nseen;
  uint64_t id = pt_cache_hash(PT_CACHE_SEED, path, strlen(path));
  int fresh = 1;
  pt_mutex_lock(&cache_lock);
  for (unsigned i = 0; i < nseen && fresh; i++) fresh = seen[i] != id;
  if (fresh && nseen < sizeof seen / sizeof *seen) seen[nseen++] = id;
  pt_mutex_unlock(&cache_lock);
  if (!fresh) return;
  fprintf(stderr, "polytensor: %s %s %s; %s\n", has_request ? "cached program" : "cache entry", path, what,
          has_request ? "recompiling" : "rebuilding");
  fflush(stderr);
}

unsigned char *pt_cache_disk_get(uint64_t key, const char *suffix, size_t *n) {
  char path[800];
  uint64_t ekey = entry_key(key);
  if (!entry_path(path, sizeof path, ekey, suffix)) return NULL;
  FILE *f = fopen(path, "rb");
  if (!f) return NULL; /* absent: nothing to say */
  file_head h;
  memset(&h, 0, sizeof h);
  unsigned char *data = NULL;
  const char *bad = NULL;
  size_t got = fread(&h, 1, sizeof h, f);
  /* Written before entries carried layouts: absent, quietly, and rewritten by the put. */
  int old = got >= 8 && memcmp(h.magic, "PTCACHE1", 8) == 0;
  if (old) {}
  else if (got != sizeof h) bad = "is truncated (no whole header)";
  else if (memcmp(h.magic, MAGIC, 8) != 0) bad = "is corrupt (bad magic)";
  else if (h.key != ekey) bad = "is corrupt (it holds another key)";
  else if (h.n == 0 || h.n > DISK_MAX) bad = "is corrupt (bad length)";
  else if (!(data = malloc((size_t)h.n))) bad = NULL; /* out of memory: absent, quietly */
  else if (fread(data, 1, (size_t)h.n, f) != h.n) bad = "is truncated";
  else if (pt_cache_hash(PT_CACHE_SEED, data, (size_t)h.n) != h.sum) bad = "is corrupt (checksum)";
  fclose(f);
  if (!bad && data) {
    const pt_layout stored = {h.abi, h.kind, h.views, h.bufs};
    const pt_layout *want = has_request ? &request : &no_layout;
    if (pt_layout_same(&stored, want)) {
      *n = (size_t)h.n;
      return data;
    }
    char was[160], need[160], what[400];
    snprintf(what, sizeof what, "was built for layout %s, the request needs %s",
             h.kind < 0 ? "none" : pt_layout_text(&stored, was, sizeof was), has_request ? pt_layout_text(want, need, sizeof need) : "none");
    reject(path, what);
  } else if (bad) {
    reject(path, bad);
  }
  free(data); /* rebuilt and rewritten */
  return NULL;
}

void pt_cache_disk_put(uint64_t key, const char *suffix, const unsigned char *data, size_t n) {
  static atomic_uint counter;
  char path[800], tmp[840];
  uint64_t ekey = entry_key(key);
  if (!entry_path(path, sizeof path, ekey, suffix)) return;
#ifdef _WIN32
  unsigned long pid = GetCurrentProcessId();
#else
  unsigned long pid = (unsigned long)getpid();
#endif
  snprintf(tmp, sizeof tmp, "%s.%lu.%u.tmp", path, pid, atomic_fetch_add(&counter, 1));
  FILE *f = fopen(tmp, "wb");
  if (!f) return; /* no cache dir: every process compiles, nothing breaks */
  const pt_layout *l = has_request ? &request : &no_layout;
  file_head h = {{0}, ekey, n, pt_cache_hash(PT_CACHE_SEED, data, n), l->abi, l->kind, l->views, l->bufs};
  memcpy(h.magic, MAGIC, sizeof h.magic);
  int ok = fwrite(&h, sizeof h, 1, f) == 1 && fwrite(data, 1, n, f) == n;
  ok = fclose(f) == 0 && ok;
#ifdef _WIN32
  if (!ok || !MoveFileExA(tmp, path, MOVEFILE_REPLACE_EXISTING)) remove(tmp);
#else
  if (!ok || rename(tmp, path) != 0) remove(tmp);
#endif
}

