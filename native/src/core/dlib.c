/* dlib.c: the platform's loader behind dlib.h (dlopen, or LoadLibrary on Windows). */
#define _GNU_SOURCE
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <string.h>
#include "dlib.h"
#include "driver.h"
#include "sync.h"

#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#else
#include <dlfcn.h>
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
    memcpy((char *)table + rows[i].off, &p, sizeof p); /* function pointers are pointer-sized here */
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
