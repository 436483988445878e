/**
 * sort (ROW launch: one threadgroup of 256 per row). The CPU version is sort.c.
 *
 * A bitonic network over (key, original position) pairs. Positions are unique, so the
 * pair order is total and the network's result is the stable sort, whatever the network
 * does with equal keys. Rows up to PT_SORT_TG elements sort in threadgroup memory; longer
 * rows sort in place on the indices output (device memory, one threadgroup, with device
 * barriers between steps), recomputing each key from the input through the index.
 *
 * The network is the form whose every compare-exchange is ascending (the first step of
 * each merge compares a position with its mirror in the block, the rest are half-cleaners),
 * so a row of n elements is padded virtually to a power of two: a partner past n is +inf,
 * always at the higher position, and the pair is simply skipped.
 *
 * Keys are sort.c's: an unsigned integer whose order is the wanted order. Floats flip
 * their sign bit (all bits when negative), -0.0 ties with 0.0, every NaN becomes one quiet
 * NaN above +inf; ints flip the sign bit; descending inverts the key (ties keep their
 * original order either way, as the stable sort does).
 */
import { KERNEL_HEAD } from "./preamble.ts";

export const SORT = String.raw`
inline ulong pt_key_f32(float f) {
  uint b = as_type<uint>(f);
  if ((b & 0x7fffffffu) > 0x7f800000u) b = 0x7fc00000u;
  else if ((b & 0x7fffffffu) == 0u) b = 0u;
  return (b & 0x80000000u) ? (ulong)(~b) : (ulong)(b | 0x80000000u);
}
inline ulong pt_sort_key(pt_ptr b, int dt, long i, bool desc) {
  ulong k;
  switch (dt) {
  case PT_F32: k = pt_key_f32(((device float *)b)[i]); break;
  case PT_F16: k = pt_key_f32(pt_f16_to_f32(((device ushort *)b)[i])); break;
  case PT_BF16: k = pt_key_f32(pt_bf16_to_f32(((device ushort *)b)[i])); break;
  case PT_I32: k = (ulong)(((device uint *)b)[i] ^ 0x80000000u); break;
  case PT_I64: k = ((device ulong *)b)[i] ^ 0x8000000000000000ul; break;
  default: k = (ulong)b[i]; break;
  }
  return desc ? ~k : k;
}
/* (ka, ia) after (kb, ib) in the stable order. */
inline bool pt_after(ulong ka, long ia, ulong kb, long ib) { return ka > kb || (ka == kb && ia > ib); }
/* Pair t of a step: the lower position, and its partner (mirror or half-cleaner). */
inline long pt_pair_low(long t, long j) { return (t / j) * 2 * j + t % j; }
inline long pt_pair_high(long i, long j, long k) { return j == k / 2 ? (i ^ (k - 1)) : i + j; }

#define PT_SORT_TG 2048 /* (8-byte key, 4-byte position) pairs: 24 KiB of threadgroup memory */

/* sort [descending, orank, oshape x8, n, IN VIEW, in axis stride, VALS VIEW,
 *       vals axis stride, IDX VIEW (int64), idx axis stride]; ROW launch over the rows. */
${KERNEL_HEAD}
  threadgroup ulong tkey[PT_SORT_TG];
  threadgroup uint tpos[PT_SORT_TG];
  const bool desc = PT_A(0) != 0;
  const int orank = (int)PT_A(1);
  long oshape[PT_MAX_RANK];
  const long rows = pt_shape_at(p, 2, orank, oshape);
  const long n = PT_A(10), sa = PT_A(22), va = PT_A(34), ia = PT_A(46);
  const pt_view vin = pt_view_at(p, B, 11), vals = pt_view_at(p, B, 23), idx = pt_view_at(p, B, 35);
  long P = 1;
  while (P < n) P <<= 1;
  for (long row = group.x; row < rows; row += groups.x) {
    const long io = vin.off + pt_offset_of(row, orank, oshape, vin.st);
    const long vo = vals.off + pt_offset_of(row, orank, oshape, vals.st);
    const long xo = idx.off + pt_offset_of(row, orank, oshape, idx.st);
    if (n <= PT_SORT_TG) {
      for (long q = lid; q < n; q += PT_BLOCK) {
        tkey[q] = pt_sort_key(vin.b, vin.dt, io + q * sa, desc);
        tpos[q] = (uint)q;
      }
      PT_BARRIER;
      for (long k = 2; k <= P; k <<= 1) {
        for (long j = k >> 1; j > 0; j >>= 1) {
          for (long t = lid; t < P / 2; t += PT_BLOCK) {
            const long i = pt_pair_low(t, j), l = pt_pair_high(i, j, k);
            if (l < n && pt_after(tkey[i], tpos[i], tkey[l], tpos[l])) {
              const ulong kk = tkey[i];
              const uint pp = tpos[i];
              tkey[i] = tkey[l];
              tpos[i] = tpos[l];
              tkey[l] = kk;
              tpos[l] = pp;
            }
          }
          PT_BARRIER;
        }
      }
      for (long r = lid; r < n; r += PT_BLOCK) {
        const long pos = tpos[r];
        pt_st_i(idx.b, idx.dt, xo + r * ia, pos);
        pt_copy_elem(vals.b, vals.dt, vo + r * va, vin.b, vin.dt, io + pos * sa);
      }
      PT_BARRIER; /* tkey and tpos are refilled for the next row */
      continue;
    }
    /* A long row: the same network on the indices output, keys read through it. */
    for (long r = lid; r < n; r += PT_BLOCK) pt_st_i(idx.b, idx.dt, xo + r * ia, r);
    threadgroup_barrier(mem_flags::mem_device);
    for (long k = 2; k <= P; k <<= 1) {
      for (long j = k >> 1; j > 0; j >>= 1) {
        for (long t = lid; t < P / 2; t += PT_BLOCK) {
          const long i = pt_pair_low(t, j), l = pt_pair_high(i, j, k);
          if (l >= n) continue;
          const long pi = pt_ld_i(idx.b, idx.dt, xo + i * ia), pl = pt_ld_i(idx.b, idx.dt, xo + l * ia);
          const ulong ki = pt_sort_key(vin.b, vin.dt, io + pi * sa, desc), kl = pt_sort_key(vin.b, vin.dt, io + pl * sa, desc);
          if (pt_after(ki, pi, kl, pl)) {
            pt_st_i(idx.b, idx.dt, xo + i * ia, pl);
            pt_st_i(idx.b, idx.dt, xo + l * ia, pi);
          }
        }
        threadgroup_barrier(mem_flags::mem_device);
      }
    }
    /* Values by position; the same dtype copies bits (NaN payloads, -0.0). */
    for (long r = lid; r < n; r += PT_BLOCK) {
      const long pos = pt_ld_i(idx.b, idx.dt, xo + r * ia);
      pt_copy_elem(vals.b, vals.dt, vo + r * va, vin.b, vin.dt, io + pos * sa);
    }
    threadgroup_barrier(mem_flags::mem_device);
  }
}
`;
