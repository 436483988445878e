/* dlib.h: opening a vendor library at run time, for drivers that include no vendor header.
 *
 * Ownership and ordering. A driver lists the entry points it uses as rows (symbol, fallback,
 * required), resolved into a table of function pointers in row order, and keeps one
 * pt_lib_state per library. pt_lib_once() runs a library's loader once per process, under
 * one process-wide lock, after the library it builds on (the driver's runtime); the outcome
 * (a filled table, or the reason it failed) is kept, so later calls cost one lock and give
 * the same answer. A loader looks in a pt_lib_dirs list, which it makes, fills in the order
 * to search and frees. Libraries are never closed once a table points into them: a driver
 * library unloaded under live contexts would take the process down.
 */
#ifndef PT_DLIB_H
#define PT_DLIB_H
#include <stddef.h>

typedef struct { const char *sym, *alt; int req; } pt_lib_row;
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
/* Fills table (row i at index i) from h; returns NULL, or the first required symbol missing. */
const char *pt_lib_resolve(void *h, const pt_lib_row *rows, size_t n, void *table);
/* The folder of the file that holds fn (a resolved entry point), or "". */
void pt_lib_dir_of(void *fn, char *out, size_t cap);
/* Keeps the reason (fmt with two strings; b may be NULL) and returns status. */
int pt_lib_fail(pt_lib_state *s, int status, const char *fmt, const char *a, const char *b);
/* Folders to look in, in order; "" is the loader's own search path. */
#define PT_LIB_MAX_DIRS 48
typedef struct { int n; char dir[PT_LIB_MAX_DIRS][400]; } pt_lib_dirs;
/* A list (free() it) of first, when it is neither NULL nor "", then ""; NULL when out of memory. */
pt_lib_dirs *pt_lib_dirs_new(const char *first);
/* Adds a (a/b when b is not NULL) unless a is NULL or "", it does not fit, or the list is full. */
void pt_lib_dirs_add(pt_lib_dirs *l, const char *a, const char *b);
/* Adds the folders matching pattern (each /sub when sub is not NULL), newest (last by name) first
 * when newest; nothing on Windows. */
void pt_lib_dirs_glob(pt_lib_dirs *l, const char *pattern, const char *sub, int newest);
/* dir's path to name, or name alone when dir is "". */
void pt_lib_join(char *out, size_t cap, const char *dir, const char *name);
/* The first of names (NULL-terminated) in the first folder of l that has every required row,
 * resolved into table, its path in s->path; else NULL with why: the loader's first reason on
 * its own path, or the last library that lacked a symbol. */
void *pt_lib_search(pt_lib_state *s, const pt_lib_dirs *l, const char *const *names, const pt_lib_row *rows, size_t n,
                    void *table, char *why, size_t cap);
/* Runs load once (after base_load for base, whose failure becomes this library's); returns
 * PT_OK, or the kept status with its reason raised through pt_error(). */
int pt_lib_once(pt_lib_state *s, int (*load)(void), pt_lib_state *base, int (*base_load)(void));

#endif
