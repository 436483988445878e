/* dlib.c: the platform's loader behind dlib.h (dlopen, or LoadLibrary on Windows). */
#define _GNU_SOURCE
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dlib.h"
#include "driver.h"
#include "sync.h"

#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#define SEP "\\"
#else
#include <dlfcn.h>
#include <glob.h>
#define SEP "/"
#ifndef GLOB_ONLYDIR
#define GLOB_ONLYDIR 0 /* a GNU hint; elsewhere a file that matches just fails to open later */
#endif
#endif

static pt_mutex lib_lock = PT_MUTEX_INIT;

void *pt_lib_open(const char *name, int global, char *why, size_t cap) {
#ifdef _WIN32
  (void)global;
  /* An absolute path loads its dependencies (a vendor library's siblings) from its own folder. */
  HMODULE h = strchr(name, '\\') || strchr(name, '/') ? LoadLibraryExA(name, NULL, LOAD_WITH_ALTERED_SEARCH_PATH)
                                                      : LoadLibraryA(name);
  if (!h && why) snprintf(why, cap, "LoadLibrary error %lu", (unsigned long)GetLastError());
  return (void *)h;
#else
  void *h = dlopen(name, RTLD_NOW | (global ? RTLD_GLOBAL : RTLD_LOCAL));
  if (!h && why) {
    const char *e = dlerror();
    snprintf(why, cap, "%s", e ? e : "dlopen failed");
  }
  return h;
#endif
}

void *pt_lib_sym(void *h, const char *name) {
#ifdef _WIN32
  FARPROC p = GetProcAddress((HMODULE)h, name);
  void *v;
  memcpy(&v, &p, sizeof v);
  return v;
#else
  return dlsym(h, name);
#endif
}

void pt_lib_close(void *h) {
#ifdef _WIN32
  FreeLibrary((HMODULE)h);
#else
  dlclose(h);
#endif
}

const char *pt_lib_resolve(void *h, const pt_lib_row *rows, size_t n, void *table) {
  for (size_t i = 0; i < n; i++) {
    void *p = pt_lib_sym(h, rows[i].sym);
    if (!p && rows[i].alt) p = pt_lib_sym(h, rows[i].alt);
    if (!p && rows[i].req) return rows[i].sym;
    memcpy((char *)table + i * sizeof p, &p, sizeof p); /* function pointers are pointer-sized here */
  }
  return NULL;
}

void pt_lib_dir_of(void *fn, char *out, size_t cap) {
  out[0] = 0;
  char p[512];
#ifdef _WIN32
  HMODULE m = NULL;
  if (!GetModuleHandleExA(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                          (LPCSTR)fn, &m) || !GetModuleFileNameA(m, p, sizeof p))
    return;
  char *slash = strrchr(p, '\\');
#else
  Dl_info info;
  if (!fn || !dladdr(fn, &info) || !info.dli_fname) return;
  snprintf(p, sizeof p, "%s", info.dli_fname);
  char *slash = strrchr(p, '/');
#endif
  if (!slash) return;
  *slash = 0;
  snprintf(out, cap, "%s", p);
}

pt_lib_dirs *pt_lib_dirs_new(const char *first) {
  pt_lib_dirs *l = calloc(1, sizeof *l);
  if (!l) return NULL;
  pt_lib_dirs_add(l, first, NULL);
  l->dir[l->n++][0] = 0;
  return l;
}

void pt_lib_dirs_add(pt_lib_dirs *l, const char *a, const char *b) {
  if (!a || !*a || l->n == PT_LIB_MAX_DIRS) return;
  int w = snprintf(l->dir[l->n], sizeof l->dir[0], "%s%s%s", a, b ? SEP : "", b ? b : "");
  if (w > 0 && (size_t)w < sizeof l->dir[0]) l->n++;
}

void pt_lib_dirs_glob(pt_lib_dirs *l, const char *pattern, const char *sub, int newest) {
#ifdef _WIN32
  (void)l, (void)pattern, (void)sub, (void)newest;
#else
  glob_t g;
  if (glob(pattern, GLOB_ONLYDIR, NULL, &g) != 0) return;
  for (size_t i = 0; i < g.gl_pathc; i++) pt_lib_dirs_add(l, g.gl_pathv[newest ? g.gl_pathc - 1 - i : i], sub);
  globfree(&g);
#endif
}

void pt_lib_join(char *out, size_t cap, const char *dir, const char *name) {
  if (dir[0]) snprintf(out, cap, "%s" SEP "%s", dir, name);
  else snprintf(out, cap, "%s", name);
}

void *pt_lib_search(pt_lib_state *s, const pt_lib_dirs *l, const char *const *names, const pt_lib_row *rows, size_t n,
                    void *table, char *why, size_t cap) {
  char path[900], err[400];
  why[0] = 0;
  for (int d = 0; d < l->n; d++) {
    for (int i = 0; names[i]; i++) {
      pt_lib_join(path, sizeof path, l->dir[d], names[i]);
      void *h = pt_lib_open(path, 0, err, sizeof err);
      if (!h) {
        if (!why[0] && !l->dir[d][0]) snprintf(why, cap, "%s", err);
        continue;
      }
      const char *missing = pt_lib_resolve(h, rows, n, table);
      if (missing) {
        snprintf(why, cap, "%s lacks %s (too old?)", path, missing);
        pt_lib_close(h);
        continue;
      }
      snprintf(s->path, sizeof s->path, "%s", path);
      return h;
    }
  }
  return NULL;
}

int pt_lib_fail(pt_lib_state *s, int status, const char *fmt, const char *a, const char *b) {
  snprintf(s->reason, sizeof s->reason, fmt, a, b ? b : "");
  return s->status = status;
}

int pt_lib_once(pt_lib_state *s, int (*load)(void), pt_lib_state *base, int (*base_load)(void)) {
  pt_mutex_lock(&lib_lock);
  if (!s->tried) {
    s->tried = 1;
    if (base && !base->tried) { base->tried = 1; base_load(); }
    if (base && base->status != PT_OK) {
      s->status = base->status;
      snprintf(s->reason, sizeof s->reason, "%s", base->reason);
    } else {
      load();
    }
  }
  int st = s->status;
  pt_mutex_unlock(&lib_lock);
  return st == PT_OK ? PT_OK : pt_error(st, "%s", s->reason);
}
