/**
 * pt_combine, the combining step of scatter and index_put (templates/index.ts, whose kernels
 * are written once): reduce 0 set, 1 add, 2 max, 3 min; ints in int64 with wrap.
 */

/** The combining step of the indexed writes, in this language. */
export const COMBINE = String.raw`
/* reduce: 0 set 1 add 2 max 3 min. Floats combine in double, ints in int64 with wrap. */
void pt_combine(uint64_t db, int ddt, int64_t di, uint64_t sb, int sdt, int64_t si, int reduce) {
  if (reduce == 0) { pt_copy_elem(db, ddt, di, sb, sdt, si); return; }
  if (pt_is_float(ddt)) {
    const double x = pt_ld_f64(db, ddt, di), y = pt_ld_f64(sb, sdt, si);
    double r;
    if (reduce == 1) r = pt_add(x, y);
    else if (isnan(x) || isnan(y)) r = isnan(x) ? x : y;
    else if (reduce == 2) r = x > y ? x : y;
    else r = x < y ? x : y;
    pt_st_f64(db, ddt, di, r);
  } else {
    const int64_t x = pt_ld_i64(db, ddt, di), y = pt_ld_i64(sb, sdt, si);
    int64_t r;
    if (reduce == 1) r = x + y;
    else if (reduce == 2) r = x > y ? x : y;
    else r = x < y ? x : y;
    pt_st_i64(db, ddt, di, r);
  }
}
`;
