/**
 * The index kernels written once (gather; the rest still in cuda/, glsl/ and msl/index.ts).
 * Reads run as ELEMENT launches over the index's elements; in error mode every index is
 * checked, and the first bad one an invocation meets is reported.
 */
import type { Dialect } from "../dialect.ts";

/** gather [rank, shape x8 (of index = of output), axis, axis size, mode, IN VIEW, IDX VIEW, OUT VIEW]. */
export const gather = (d: Dialect): string =>
  String.raw`
/* out[p] = in[p with p[axis] = idx[p]]; ELEMENT launch over the index's elements. */
${d.kernel}
  int rank = int(PT_A(0));
  if (rank == 0) rank = 1; /* a 0-d index is 1-d of one element */
  pt_i64 shape[PT_MAX_RANK];
  const pt_i64 n = PT_SHAPE(1, rank, shape);
  const int axis = int(PT_A(9)), mode = int(PT_A(11));
  const pt_i64 size = PT_A(10);
  const pt_view vin = PT_VIEW(12), ix = PT_VIEW(23), vout = PT_VIEW(34);
  pt_i64 ist[PT_MAX_RANK]; /* in's strides with the axis left out */
  pt_i64 astride = 0;
  PT_UNROLL
  for (int d = 0; d < PT_MAX_RANK; d++) {
    ist[d] = d == axis ? pt_i64(0) : vin.st[d];
    if (d == axis) astride = vin.st[d];
  }
  for (pt_i64 i = PT_FIRST; i < n; i += PT_STEP) {
    const pt_i64 v = pt_ld_i64(ix.b, ix.dt, ix.off + pt_offset_of(i, rank, shape, ix.st));
    const pt_i64 k = pt_norm_index(v, size, mode);
    if (k < 0) { PT_FAIL(PT_KERR_INDEX, v, axis, size); return; }
    pt_copy_elem(vout.b, vout.dt, vout.off + pt_offset_of(i, rank, shape, vout.st), vin.b, vin.dt,
                 vin.off + pt_offset_of(i, rank, shape, ist) + k * astride);
  }
}
`;
