/* handles.h: the table that turns 32-bit ids into core objects.
 *
 * Ownership and ordering. The table owns only slots; each slot points at an object the
 * caller owns and frees after pt_handle_free(). A handle is (generation << 20 | slot):
 * positive, 20 bits of slot and 11 of generation (1..2047), so a freed handle stays
 * detectably freed until its slot is reused, and stale after that. Freed slots are reused
 * oldest first, and only once many are free, to keep stale ids from aliasing new ones.
 * Every function here must be called with the core lock held (core.h).
 */
#ifndef PT_HANDLES_H
#define PT_HANDLES_H
#include <stdint.h>

enum pt_kind { PT_KIND_NONE = 0, PT_KIND_DEVICE, PT_KIND_QUEUE, PT_KIND_BUFFER, PT_KIND_PROGRAM, PT_KIND_FENCE, PT_KIND_GRAPH, PT_KIND_COUNT };

/* Why a slot was freed, for the message a later lookup gives. */
enum pt_free_reason { PT_FREED_BY_CALLER = 0, PT_FREED_BY_CLOSE = 1 };

const char *pt_kind_name(int kind);
/* > 0 new handle, or PT_EOOM (with message) when the table is full. */
int32_t pt_handle_new(int kind, void *obj);
/* PT_OK and *obj, or PT_EHANDLE with a message naming the handle and the expected kind. */
int pt_handle_get(int32_t h, int kind, void **obj);
void pt_handle_free(int32_t h, int reason);
int pt_handle_live(void);
/* Iterates live handles: start with *cursor = 0; returns 0 when done. */
int pt_handle_next(int *cursor, int32_t *h, int *kind, void **obj);

#endif
