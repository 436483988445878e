/**
 * The scan kernel written once (reduce's are still per language: cuda/, glsl/ and
 * msl/reduce.ts). Floats accumulate in the dialect's pt_facc (double; float-float on Metal)
 * and integers in wrapping pt_u64, as the CPU's sequential scan.c does.
 */
import type { Dialect } from "../dialect.ts";

/**
 * scan: the row moves through shared memory 256 positions at a time (all invocations load
 * and store, converting), and invocation 0 runs the dependent chain over each chunk in
 * order, so the result is the CPU's sequential accumulation. The chain runs PT_SCAN_STEPS
 * steps a loop pass: with one a pass, llvmpipe ends invocation 0's loops on rows past 64k
 * (glsl/preamble.ts); with 16, rows of up to 800k scan there.
 */
export const scan = (d: Dialect): string =>
  String.raw`
#define PT_SCAN_STEPS 16
PT_SHARED_GLOBAL(pt_facc, bf)
PT_SHARED_GLOBAL(pt_u64, bu)
/* scan [op, orank, oshape x8, n, IN VIEW (outer strides), in axis stride,
 *       OUT VIEW (outer strides), out axis stride]; op 0 cumsum, 1 cumprod; ROW launch. */
${d.kernel}
  PT_SHARED_LOCAL(pt_facc, bf)
  PT_SHARED_LOCAL(pt_u64, bu)
  const int op = int(PT_A(0)), orank = int(PT_A(1));
  pt_i64 oshape[PT_MAX_RANK];
  const pt_i64 rows = PT_SHAPE(2, orank, oshape);
  const pt_i64 n = PT_A(10), sa = PT_A(22), oa = PT_A(34);
  const pt_view vin = PT_VIEW(11), vout = PT_VIEW(23);
  const bool fl = pt_is_float(vin.dt);
  const int tid = PT_TID;
  for (pt_i64 row = pt_i64(PT_GROUP_ID); row < rows; row += pt_i64(PT_GROUPS)) {
    const pt_i64 io = vin.off + pt_offset_of(row, orank, oshape, vin.st);
    const pt_i64 oo = vout.off + pt_offset_of(row, orank, oshape, vout.st);
    pt_facc accf = pt_facc_of(op != 0 ? 1 : 0); /* invocation 0's running values */
    pt_u64 accu = pt_u64(op != 0 ? 1 : 0);
    for (pt_i64 k0 = 0; k0 < n; k0 += PT_BLOCK) {
      const pt_i64 k = k0 + pt_i64(tid);
      if (k < n) {
        if (fl) bf[tid] = pt_ld_facc(vin.b, vin.dt, io + k * sa);
        else bu[tid] = pt_u64(pt_ld_i64(vin.b, vin.dt, io + k * sa));
      }
      PT_SYNC();
      if (tid == 0) {
        const int m = n - k0 < pt_i64(PT_BLOCK) ? int(n - k0) : PT_BLOCK;
        if (fl) {
          for (int j0 = 0; j0 < m; j0 += PT_SCAN_STEPS) {
            PT_UNROLL
            for (int u = 0; u < PT_SCAN_STEPS; u++) {
              const int j = j0 + u;
              if (j < m) { accf = op != 0 ? pt_facc_mul(accf, bf[j]) : pt_facc_add(accf, bf[j]); bf[j] = accf; }
            }
          }
        } else {
          for (int j0 = 0; j0 < m; j0 += PT_SCAN_STEPS) {
            PT_UNROLL
            for (int u = 0; u < PT_SCAN_STEPS; u++) {
              const int j = j0 + u;
              if (j < m) { accu = op != 0 ? accu * bu[j] : accu + bu[j]; bu[j] = accu; }
            }
          }
        }
      }
      PT_SYNC();
      if (k < n) {
        if (fl) pt_st_facc(vout.b, vout.dt, oo + k * oa, bf[tid]);
        else pt_st_i64(vout.b, vout.dt, oo + k * oa, pt_i64(bu[tid]));
      }
      PT_SYNC(); /* the slots are read before the next chunk overwrites them */
    }
  }
}
`;
