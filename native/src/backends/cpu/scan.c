/* scan.c: the "scan" template, cumsum and cumprod along one axis (see kernels.h).
 *
 * A scan is a chain of dependent adds, so speed comes from running several chains at
 * once: a tile of neighbouring outputs along the last outer dim is scanned together.
 * Each step gathers a stretch of the axis for the whole tile into a buffer laid out
 * [position][output], where the update across outputs is one vectorisable loop, and
 * scatters the running values back in the output's dtype. Floats accumulate in double,
 * ints in int64 with wrapping (done in uint64, where overflow is defined).
 */
#include "kernels.h"
#include "pool.h"
#include "strided.h"

#define BUF 4096 /* doubles staged per step: 32 KiB */
#define WIDE 512 /* tile when neighbouring outputs are closer than neighbouring positions */
#define NARROW 8 /* otherwise: enough chains to hide the add latency, few prefetch streams */

typedef struct {
  int op, fl, orank, last, in_rows, out_rows; /* *_rows: copy across the tile, one position at a time */
  int64_t oshape[PT_MAX_RANK], onum, n, sa, oa, tile, kb, tpr, ntiles;
  cpu_view in, out;
} job_t;

static void offsets(const job_t *j, int64_t o, int64_t *io, int64_t *oo) {
  *io = *oo = 0;
  for (int d = j->orank - 1; d >= 0; d--) {
    int64_t q = o % j->oshape[d];
    o /= j->oshape[d];
    *io += q * j->in.stride[d];
    *oo += q * j->out.stride[d];
  }
}

static void scan_tiles(void *ctx, size_t begin, size_t end) {
  const job_t *j = ctx;
  union { double f[BUF]; uint64_t u[BUF]; } buf;
  union { double f[WIDE]; uint64_t u[WIDE]; } acc;
  int idt = j->in.dtype, odt = j->out.dtype;
  int64_t T = j->tile, KB = j->kb;
  for (size_t w = begin; w < end; w++) {
    int64_t o0 = (int64_t)w, cnt = 1, ts = 0, tso = 0, io, oo;
    if (j->last >= 0) {
      int64_t len = j->oshape[j->last], c0 = ((int64_t)w % j->tpr) * T;
      o0 = ((int64_t)w / j->tpr) * len + c0;
      cnt = len - c0 < T ? len - c0 : T;
      ts = j->in.stride[j->last];
      tso = j->out.stride[j->last];
    }
    offsets(j, o0, &io, &oo);
    for (int64_t t = 0; t < cnt; t++) {
      if (j->fl) acc.f[t] = j->op ? 1.0 : 0.0;
      else acc.u[t] = j->op ? 1 : 0;
    }
    for (int64_t k0 = 0; k0 < j->n; k0 += KB) {
      int64_t kc = j->n - k0 < KB ? j->n - k0 : KB;
      /* Copy along whichever direction is closer in memory: strided walks that all hit
       * one cache set (a power-of-two row length) would evict each other. */
      if (j->in_rows)
        for (int64_t k = 0; k < kc; k++) {
          const uint8_t *p = PT_ELEM(&j->in, io + (k0 + k) * j->sa);
          if (j->fl) kgather_f(p, idt, ts, cnt, buf.f + k * T, 1);
          else kgather_i(p, idt, ts, cnt, (int64_t *)buf.u + k * T, 1);
        }
      else
        for (int64_t t = 0; t < cnt; t++) {
          const uint8_t *p = PT_ELEM(&j->in, io + t * ts + k0 * j->sa);
          if (j->fl) kgather_f(p, idt, j->sa, kc, buf.f + t, T);
          else kgather_i(p, idt, j->sa, kc, (int64_t *)buf.u + t, T);
        }
      for (int64_t k = 0; k < kc; k++) {
        if (j->fl) {
          double *b = buf.f + k * T;
          if (j->op) for (int64_t t = 0; t < cnt; t++) b[t] = acc.f[t] *= b[t];
          else for (int64_t t = 0; t < cnt; t++) b[t] = acc.f[t] += b[t];
        } else {
          uint64_t *b = buf.u + k * T;
          if (j->op) for (int64_t t = 0; t < cnt; t++) b[t] = acc.u[t] *= b[t];
          else for (int64_t t = 0; t < cnt; t++) b[t] = acc.u[t] += b[t];
        }
      }
      if (j->out_rows)
        for (int64_t k = 0; k < kc; k++) {
          uint8_t *p = PT_ELEM(&j->out, oo + (k0 + k) * j->oa);
          if (j->fl) kscatter_f(p, odt, tso, cnt, buf.f + k * T, 1);
          else kscatter_i(p, odt, tso, cnt, (const int64_t *)buf.u + k * T, 1);
        }
      else
        for (int64_t t = 0; t < cnt; t++) {
          uint8_t *p = PT_ELEM(&j->out, oo + t * tso + k0 * j->oa);
          if (j->fl) kscatter_f(p, odt, j->oa, kc, buf.f + t, T);
          else kscatter_i(p, odt, j->oa, kc, (const int64_t *)buf.u + t, T);
        }
    }
  }
}

int cpu_scan(const pt_mem_ref *bufs, int nbuf, const double *a, int na) {
  job_t j;
  int64_t v;
  int rc;
  memset(&j, 0, sizeof j);
  if (!a || na < PT_SCAN_SLOTS) return pt_error(PT_EINVAL, "scan: argument block has %d slots, needs %d", na, PT_SCAN_SLOTS);
  if (!kslot(a[PT_SCAN_OP], 0, 1, &v)) return pt_error(PT_EINVAL, "scan: op %g is not 0 (cumsum) or 1 (cumprod)", a[PT_SCAN_OP]);
  j.op = (int)v;
  if (!kslot(a[PT_SCAN_ORANK], 0, PT_MAX_RANK, &v)) return pt_error(PT_EINVAL, "scan: rank %g is not in [0, %d]", a[PT_SCAN_ORANK], PT_MAX_RANK);
  j.orank = (int)v;
  if ((rc = cpu_shape_parse(a + PT_SCAN_OSHAPE, j.orank, j.oshape, "scan: outer shape"))) return rc;
  if (!kslot(a[PT_SCAN_N], 0, KSLOT_MAX, &j.n)) return pt_error(PT_EINVAL, "scan: axis length %g is not an integer >= 0", a[PT_SCAN_N]);
  if (!kslot(a[PT_SCAN_IN_STRIDE], KSLOT_ANY, &j.sa) || !kslot(a[PT_SCAN_OUT_STRIDE], KSLOT_ANY, &j.oa))
    return pt_error(PT_EINVAL, "scan: axis strides %g, %g are not integers", a[PT_SCAN_IN_STRIDE], a[PT_SCAN_OUT_STRIDE]);
  if ((rc = cpu_view_parse(bufs, nbuf, a + PT_SCAN_IN, j.orank, j.oshape, 1, &j.n, &j.sa, "scan: input", &j.in)) ||
      (rc = cpu_view_parse(bufs, nbuf, a + PT_SCAN_OUT, j.orank, j.oshape, 1, &j.n, &j.oa, "scan: output", &j.out)))
    return rc;
  j.onum = cpu_numel(j.orank, j.oshape);
  if (j.onum == 0 || j.n == 0) return PT_OK;
  int64_t total;
  if (__builtin_mul_overflow(j.onum, j.n, &total)) /* stride-0 views can claim any size */
    return pt_error(PT_EINVAL, "scan: %lld x %lld elements is too many", (long long)j.onum, (long long)j.n);
  j.fl = pt_is_float(j.in.dtype);

  j.last = j.orank - 1;
  while (j.last >= 0 && j.oshape[j.last] == 1) j.last--;
  j.tile = 1;
  if (j.last < 0) { j.tpr = 1; j.ntiles = j.onum; }
  else {
    int64_t ts = j.in.stride[j.last], tso = j.out.stride[j.last], len = j.oshape[j.last];
    j.in_rows = (ts < 0 ? -ts : ts) < (j.sa < 0 ? -j.sa : j.sa);
    j.out_rows = (tso < 0 ? -tso : tso) < (j.oa < 0 ? -j.oa : j.oa);
    j.tile = j.in_rows ? WIDE : NARROW;
    j.tpr = (len + j.tile - 1) / j.tile;
    j.ntiles = j.onum / len * j.tpr;
  }
  j.kb = BUF / j.tile;
  int64_t per = j.tile * j.n;
  cpu_parallel_for((size_t)j.ntiles, (size_t)(per >= 32768 ? 1 : 32768 / per), scan_tiles, &j);
  return PT_OK;
}
