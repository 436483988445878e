/**
 * pt_combine, the combining step of scatter and index_put (templates/index.ts, whose kernels
 * are written once): reduce 0 set, 1 add, 2 max, 3 min; ints in int64 with wrap.
 */

/** The combining step of the indexed writes, in this language. */
export const COMBINE = String.raw`
/* reduce: 0 set 1 add 2 max 3 min. Floats combine in double, ints in int64 with wrap. */
static __device__ __forceinline__ void pt_combine(char *db, int ddt, pt_i64 di, const char *sb, int sdt, pt_i64 si, int reduce) {
  if (reduce == 0) { pt_copy_elem(db, ddt, di, sb, sdt, si); return; }
  if (pt_is_float(ddt)) {
    const double x = pt_ld_f64(db, ddt, di), y = pt_ld_f64(sb, sdt, si);
    double r;
    if (reduce == 1) r = pt_add(x, y);
    else if (x != x || y != y) r = x != x ? x : y;
    else if (reduce == 2) r = x > y ? x : y;
    else r = x < y ? x : y;
    pt_st_f64(db, ddt, di, r);
  } else {
    const pt_i64 x = pt_ld_i64(db, ddt, di), y = pt_ld_i64(sb, sdt, si);
    pt_i64 r;
    if (reduce == 1) r = (pt_i64)((pt_u64)x + (pt_u64)y);
    else if (reduce == 2) r = x > y ? x : y;
    else r = x < y ? x : y;
    pt_st_i64(db, ddt, di, r);
  }
}
`;
