/**
 * pt_combine, the combining step of scatter and index_put (templates/index.ts, whose kernels
 * are written once): reduce 0 set, 1 add, 2 max, 3 min; ints in int64 with wrap.
 */

/** The combining step of the indexed writes, in this language. */
export const COMBINE = String.raw`
/* reduce: 0 set 1 add 2 max 3 min. Floats combine as the CPU's f64 values do (df here), ints
 * in int64 with wrap. */
inline void pt_combine(pt_ptr db, int ddt, long di, pt_ptr sb, int sdt, long si, int reduce) {
  if (reduce == 0) { pt_copy_elem(db, ddt, di, sb, sdt, si); return; }
  if (pt_is_float(ddt)) {
    const pt_df x = pt_ld_df(db, ddt, di), y = pt_ld_df(sb, sdt, si);
    pt_df r;
    if (reduce == 1) r = pt_df_add(x, y);
    else if (x.hi != x.hi || y.hi != y.hi) r = x.hi != x.hi ? x : y;
    else if (reduce == 2) r = pt_df_lt(y, x) ? x : y;
    else r = pt_df_lt(x, y) ? x : y;
    pt_st_df(db, ddt, di, r);
  } else {
    const long x = pt_ld_i(db, ddt, di), y = pt_ld_i(sb, sdt, si);
    long r;
    if (reduce == 1) r = (long)((ulong)x + (ulong)y);
    else if (reduce == 2) r = x > y ? x : y;
    else r = x < y ? x : y;
    pt_st_i(db, ddt, di, r);
  }
}
`;
