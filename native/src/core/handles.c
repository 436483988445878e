/* handles.c: slot table behind handles.h; called with the core lock held. */
#include <stdlib.h>
#include "core.h"

#define SLOT_BITS 20
#define MAX_SLOTS (1 << SLOT_BITS)
#define GEN_MAX 2047
#define REUSE_AFTER 4096 /* free slots kept before reuse, while the table may grow */

enum { ST_NEVER = 0, ST_LIVE, ST_FREED };

typedef struct {
  void *obj;
  uint16_t gen;
  uint8_t kind, state, reason;
  int32_t next; /* free-list link, -1 at the end */
} slot_t;

static slot_t *slots;
static int32_t nslots, cap_slots, live;
static int32_t free_head = -1, free_tail = -1, nfree;

static const char *const kind_names[PT_KIND_COUNT] = {"none", "device", "queue", "buffer", "program", "fence", "captured step"};

const char *pt_kind_name(int kind) { return kind > 0 && kind < PT_KIND_COUNT ? kind_names[kind] : "object"; }

static int32_t take_slot(void) {
  if (nfree > 0 && (nfree > REUSE_AFTER || nslots >= MAX_SLOTS)) {
    int32_t i = free_head;
    free_head = slots[i].next;
    if (free_head < 0) free_tail = -1;
    nfree--;
    slots[i].gen = slots[i].gen >= GEN_MAX ? 1 : slots[i].gen + 1;
    return i;
  }
  if (nslots >= MAX_SLOTS) return -1;
  if (nslots == cap_slots) {
    int32_t ncap = cap_slots ? cap_slots * 2 : 256;
    slot_t *ns = realloc(slots, (size_t)ncap * sizeof *ns);
    if (!ns) return -1;
    slots = ns;
    cap_slots = ncap;
  }
  /* Slot 0 is never handed out: a zero slot field then always means garbage. */
  if (nslots == 0) { slots[0] = (slot_t){0}; nslots = 1; }
  int32_t i = nslots++;
  slots[i] = (slot_t){.gen = 1, .next = -1};
  return i;
}

int32_t pt_handle_new(int kind, void *obj) {
  int32_t i = take_slot();
  if (i < 0) return pt_error(PT_EOOM, "handle table is full (%d live handles)", live);
  slots[i].obj = obj;
  slots[i].kind = (uint8_t)kind;
  slots[i].state = ST_LIVE;
  slots[i].reason = 0;
  live++;
  return (int32_t)slots[i].gen << SLOT_BITS | i;
}

int pt_handle_get(int32_t h, int kind, void **obj) {
  const char *want = pt_kind_name(kind);
  int32_t i = h & (MAX_SLOTS - 1), gen = h >> SLOT_BITS;
  if (h <= 0 || gen == 0 || i == 0 || i >= nslots || slots[i].state == ST_NEVER)
    return pt_error(PT_EHANDLE, "handle %d is not a live polytensor handle (expected a %s)", h, want);
  slot_t *s = &slots[i];
  if (s->gen != gen)
    return pt_error(PT_EHANDLE, "handle %d is stale: its object was freed and the slot reused (expected a %s)", h, want);
  if (s->state == ST_FREED) {
    if (s->reason == PT_FREED_BY_CLOSE)
      return pt_error(PT_EHANDLE, "handle %d was freed: its device was closed (expected a %s)", h, want);
    return pt_error(PT_EHANDLE, "handle %d was freed: a %s, already released (expected a %s)", h, pt_kind_name(s->kind), want);
  }
  if (s->kind != kind)
    return pt_error(PT_EHANDLE, "handle %d is a %s, expected a %s", h, pt_kind_name(s->kind), want);
  *obj = s->obj;
  return PT_OK;
}

void pt_handle_free(int32_t h, int reason) {
  int32_t i = h & (MAX_SLOTS - 1);
  if (h <= 0 || i == 0 || i >= nslots) return;
  slot_t *s = &slots[i];
  if (s->state != ST_LIVE || s->gen != (h >> SLOT_BITS)) return;
  s->state = ST_FREED;
  s->reason = (uint8_t)reason;
  s->obj = NULL;
  s->next = -1;
  if (free_tail >= 0) slots[free_tail].next = i;
  else free_head = i;
  free_tail = i;
  nfree++;
  live--;
}

int pt_handle_live(void) { return live; }

int pt_handle_next(int *cursor, int32_t *h, int *kind, void **obj) {
  for (int32_t i = *cursor; i < nslots; i++) {
    if (slots[i].state != ST_LIVE) continue;
    *cursor = i + 1;
    *h = (int32_t)slots[i].gen << SLOT_BITS | i;
    *kind = slots[i].kind;
    *obj = slots[i].obj;
    return 1;
  }
  *cursor = nslots;
  return 0;
}
