/* im2col.c: the "im2col" template (blocks.h): a convolution's columns, out[n, c, tap, pixel] = the padded input at
 * that tap and output pixel. Planes (n, c) run in parallel; within one, each tap is a pass over the output pixels in
 * order, so writes are sequential. */
#include <string.h>
#include "kernels.h"
#include "pool.h"
#include "strided.h"
#include "../../core/blocks.h"

typedef struct {
  int64_t v[14]; /* N C H W kH kW sh sw ph pw dh dw OH OW, the block's order */
  cpu_view in, out;
} im2col_t;

static void planes(void *ctx, size_t begin, size_t end) {
  const im2col_t *g = ctx;
  const int64_t C = g->v[1], H = g->v[2], W = g->v[3], KH = g->v[4], KW = g->v[5], SH = g->v[6], SW = g->v[7];
  const int64_t PH = g->v[8], PW = g->v[9], DH = g->v[10], DW = g->v[11], OH = g->v[12], OW = g->v[13];
  const int64_t *is = g->in.stride, *os = g->out.stride;
  for (size_t r = begin; r < end; r++) {
    const int64_t n = (int64_t)r / C, c = (int64_t)r % C;
    const float *x = (const float *)g->in.base + g->in.offset + n * is[0] + c * is[1];
    float *o = (float *)g->out.base + g->out.offset + n * os[0] + c * os[1];
    for (int64_t i = 0; i < KH; i++) {
      for (int64_t j = 0; j < KW; j++) {
        float *col = o + (i * KW + j) * os[2];
        for (int64_t oy = 0; oy < OH; oy++) {
          const int64_t y = oy * SH - PH + i * DH;
          float *dst = col + oy * OW * os[3];
          if (y < 0 || y >= H) {
            for (int64_t ox = 0; ox < OW; ox++) dst[ox * os[3]] = 0.0f;
            continue;
          }
          const float *row = x + y * is[2];
          for (int64_t ox = 0; ox < OW; ox++) {
            const int64_t xx = ox * SW - PW + j * DW;
            dst[ox * os[3]] = xx >= 0 && xx < W ? row[xx * is[3]] : 0.0f;
          }
        }
      }
    }
  }
}

int cpu_im2col(const pt_mem_ref *bufs, int nbuf, const double *a, int na) {
  im2col_t g;
  int rc;
  memset(&g, 0, sizeof g);
  if (!a || na < PT_IM2COL_SLOTS) return pt_error(PT_EINVAL, "im2col: argument block has %d slots, needs %d", na, PT_IM2COL_SLOTS);
  for (int i = 0; i < 14; i++)
    if (!kslot(a[PT_IM2COL_N + i], 0, 2147483647LL, &g.v[i])) return pt_error(PT_EINVAL, "im2col: slot %d (%g) is invalid", i, a[PT_IM2COL_N + i]);
  if (g.v[6] < 1 || g.v[7] < 1 || g.v[10] < 1 || g.v[11] < 1) return pt_error(PT_EINVAL, "im2col: a stride or dilation is below 1");
  const int64_t ish[4] = {g.v[0], g.v[1], g.v[2], g.v[3]}, osh[4] = {g.v[0], g.v[1], g.v[4] * g.v[5], g.v[12] * g.v[13]};
  if ((rc = cpu_view_parse(bufs, nbuf, a + PT_IM2COL_IN, 4, ish, 0, NULL, NULL, "im2col: IN", &g.in)) ||
      (rc = cpu_view_parse(bufs, nbuf, a + PT_IM2COL_OUT, 4, osh, 0, NULL, NULL, "im2col: OUT", &g.out)))
    return rc;
  if (g.in.dtype != PT_F32 || g.out.dtype != PT_F32) return pt_error(PT_EINVAL, "im2col: dtypes %d, %d are not f32", g.in.dtype, g.out.dtype);
  const int64_t count = g.v[0] * g.v[1], cost = osh[2] * osh[3] + 1;
  if (count > 0) cpu_parallel_for((size_t)count, (size_t)((1 << 16) / cost + 1), planes, &g);
  return PT_OK;
}
