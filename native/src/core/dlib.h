/* dlib.h: opening a vendor library at run time, for drivers that include no vendor header.
 *
 * Ownership and ordering. A driver lists the entry points it uses as rows (symbol, fallback,
 * required, offset into its table of function pointers) and keeps one pt_lib_state per
 * library. pt_lib_once() runs a library's loader once per process, under one process-wide
 * lock, after the library it builds on (the driver's runtime); the outcome (a filled
 * table, or the reason it failed) is kept, so later calls cost one lock and give the same
 * answer. Libraries are never closed once a table points into them: a driver library
 * unloaded under live contexts would take the process down.
 */
#ifndef PT_DLIB_H
#define PT_DLIB_H
#include <stddef.h>

typedef struct { const char *sym, *alt; int req; size_t off; } pt_lib_row;
#define PT_LIB_NROWS(rows) (sizeof rows / sizeof *rows)

typedef struct {
  int tried, status, version;
  char reason[600], path[512], dir[512];
} pt_lib_state;

/* The loader's handle, or NULL with the loader's reason in why (when why is not NULL).
 * global: the library's symbols serve libraries loaded after it (a dependency by name). */
void *pt_lib_open(const char *name, int global, char *why, size_t cap);
void *pt_lib_sym(void *h, const char *name);
void pt_lib_close(void *h);
/* Fills table from h; returns NULL, or the first required symbol that is missing. */
const char *pt_lib_resolve(void *h, const pt_lib_row *rows, size_t n, void *table);
/* The folder of the file that holds fn (a resolved entry point), or "". */
void pt_lib_dir_of(void *fn, char *out, size_t cap);
/* Keeps the reason (fmt with two strings; b may be NULL) and returns status. */
int pt_lib_fail(pt_lib_state *s, int status, const char *fmt, const char *a, const char *b);
/* Runs load once (after base_load for base, whose failure becomes this library's); returns
 * PT_OK, or the kept status with its reason raised through pt_error(). */
int pt_lib_once(pt_lib_state *s, int (*load)(void), pt_lib_state *base, int (*base_load)(void));

#endif
