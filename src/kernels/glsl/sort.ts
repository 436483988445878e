/**
 * sort (ROW launch: one group of 256 invocations per row). The CPU version is sort.c.
 *
 * A bitonic network over (key, position) pairs, compared lexicographically: positions are
 * unique, so the order is total and equals the stable sort. The network is the form whose
 * every comparator puts the smaller pair at the lower index (the first step of each merge
 * compares mirror positions), so the row is padded virtually to a power of two with pairs
 * larger than any real one and comparators that reach a padded slot do nothing.
 *   - Rows of up to 2048 elements sort in shared memory (24 KiB: within lavapipe's 32).
 *   - Longer rows sort in place in the outputs: VALS gets a copy of the row, IDX the
 *     positions, and each step reads and swaps them through `coherent` references, with a
 *     buffer memory barrier between steps. Keys are then taken from VALS, so this path
 *     sorts by the values as stored in VALS' dtype (the front end gives VALS the input's).
 *     Each loop pass of an invocation runs 8 comparators: with one a pass, llvmpipe would
 *     end its loops (preamble.ts) on rows past 2^17; with 8, rows of up to 2^20 sort there.
 *
 * Keys are sort.c's: an unsigned integer whose order is the wanted order. Floats flip
 * their sign bit (all bits when negative), -0.0 ties with 0.0, every NaN becomes one quiet
 * NaN above +inf; ints flip the sign bit; descending inverts the key (ties keep their
 * original order either way, as the stable sort does). Keys come from the stored bits, so
 * a driver that flushes f32 subnormals in arithmetic still orders them.
 */
export const SORT = String.raw`
layout(buffer_reference, std430, buffer_reference_align = 8) coherent buffer PtC64 { uint64_t v; };
layout(buffer_reference, std430, buffer_reference_align = 4) coherent buffer PtC32 { uint v; };
layout(buffer_reference, std430, buffer_reference_align = 2) coherent buffer PtC16 { uint16_t v; };
layout(buffer_reference, std430, buffer_reference_align = 1) coherent buffer PtC8 { uint8_t v; };

#define PT_SORT_SHARED 2048
#define PT_SORT_UNROLL 8
shared uint64_t skey[PT_SORT_SHARED];
shared uint sidx[PT_SORT_SHARED];

uint64_t pt_key32(uint b) {
  if ((b & 0x7fffffffu) > 0x7f800000u) b = 0x7fc00000u;
  else if ((b & 0x7fffffffu) == 0u) b = 0u;
  return uint64_t((b & 0x80000000u) != 0u ? ~b : b | 0x80000000u);
}
uint64_t pt_key64(uint64_t b) {
  const uint64_t sgn = 0x8000000000000000ul, mag = b & ~sgn;
  if (mag > 0x7ff0000000000000ul) b = 0x7ff8000000000000ul;
  else if (mag == 0ul) b = 0ul;
  return (b & sgn) != 0ul ? ~b : b | sgn;
}
/* The key of an element from its raw bits (zero-extended). */
uint64_t pt_key_of(uint64_t bits, int dt, bool desc) {
  uint64_t k;
  switch (dt) {
  case PT_F32: k = pt_key32(uint(bits)); break;
  case PT_F16: k = pt_key32(floatBitsToUint(pt_f16_to_f32(uint(bits)))); break;
  case PT_BF16: k = pt_key32(uint(bits) << 16); break;
  case PT_F64: k = pt_key64(bits); break;
  case PT_I32: k = uint64_t(uint(bits) ^ 0x80000000u); break;
  case PT_I64: k = bits ^ 0x8000000000000000ul; break;
  default: k = bits; break;
  }
  return desc ? ~k : k;
}
uint64_t pt_bits(uint64_t b, int size, int64_t i) {
  switch (size) {
  case 8: return PtU64(b + uint64_t(i) * 8ul).v;
  case 4: return uint64_t(PtU32(b + uint64_t(i) * 4ul).v);
  case 2: return uint64_t(pt_raw_u16(b, i));
  default: return uint64_t(pt_raw_u8(b, i));
  }
}
uint64_t pt_cbits(uint64_t b, int size, int64_t i) {
  switch (size) {
  case 8: return PtC64(b + uint64_t(i) * 8ul).v;
  case 4: return uint64_t(PtC32(b + uint64_t(i) * 4ul).v);
  case 2: return uint64_t(PtC16(b + uint64_t(i) * 2ul).v);
  default: return uint64_t(PtC8(b + uint64_t(i)).v);
  }
}
void pt_cput(uint64_t b, int size, int64_t i, uint64_t v) {
  switch (size) {
  case 8: PtC64(b + uint64_t(i) * 8ul).v = v; break;
  case 4: PtC32(b + uint64_t(i) * 4ul).v = uint(v); break;
  case 2: PtC16(b + uint64_t(i) * 2ul).v = uint16_t(uint(v)); break;
  default: PtC8(b + uint64_t(i)).v = uint8_t(uint(v)); break;
  }
}
/* (ka, ia) < (kb, ib) */
bool pt_before(uint64_t ka, int64_t ia, uint64_t kb, int64_t ib) { return ka < kb || (ka == kb && ia < ib); }

/* sort [descending, orank, oshape x8, n, IN VIEW, in axis stride, VALS VIEW,
 *       vals axis stride, IDX VIEW (int64), idx axis stride]; ROW launch over the rows. */
void main() {
  const bool desc = PT_P.a[0] != 0.0lf;
  const int orank = int(PT_P.a[1]);
  int64_t oshape[PT_MAX_RANK];
  const int64_t rows = pt_shape_at(2, orank, oshape);
  const int64_t n = PT_A(10), sa = PT_A(22), va = PT_A(34), ia = PT_A(46);
  const pt_view vin = pt_view_at(11), vals = pt_view_at(23), idx = pt_view_at(35);
  const int isz = pt_dtype_size(vin.dt), vsz = pt_dtype_size(vals.dt);
  const int64_t tid = int64_t(gl_LocalInvocationID.x);
  int64_t np = 1;
  while (np < n) np <<= 1;
  for (int64_t row = int64_t(gl_WorkGroupID.x); row < rows; row += int64_t(gl_NumWorkGroups.x)) {
    const int64_t io = vin.off + pt_offset_of(row, orank, oshape, vin.st);
    const int64_t vo = vals.off + pt_offset_of(row, orank, oshape, vals.st);
    const int64_t xo = idx.off + pt_offset_of(row, orank, oshape, idx.st);
    if (np <= PT_SORT_SHARED) {
      for (int64_t q = tid; q < np; q += PT_BLOCK) {
        skey[int(q)] = q < n ? pt_key_of(pt_bits(vin.b, isz, io + q * sa), vin.dt, desc) : 0xfffffffffffffffful;
        sidx[int(q)] = uint(q);
      }
      barrier();
      for (int64_t k = 2; k <= np; k <<= 1) {
        for (int64_t j = k >> 1; j > 0; j >>= 1) {
          for (int64_t t = tid; t < np / 2; t += PT_BLOCK) {
            const int i = int((t / j) * 2l * j + t % j), p = int(j == k >> 1 ? (int64_t(i) ^ (k - 1l)) : int64_t(i) + j);
            const uint64_t ki = skey[i], kp = skey[p];
            const uint ii = sidx[i], ip = sidx[p];
            if (pt_before(kp, int64_t(ip), ki, int64_t(ii))) {
              skey[i] = kp; skey[p] = ki;
              sidx[i] = ip; sidx[p] = ii;
            }
          }
          barrier();
        }
      }
      /* Values by position; the same dtype copies bits (NaN payloads, -0.0). */
      for (int64_t r = tid; r < n; r += PT_BLOCK) {
        const int64_t pos = int64_t(sidx[int(r)]);
        pt_st_i64(idx.b, idx.dt, xo + r * ia, pos);
        pt_copy_elem(vals.b, vals.dt, vo + r * va, vin.b, vin.dt, io + pos * sa);
      }
      barrier(); /* shared memory is refilled by the next row */
      continue;
    }
    /* In place in the outputs. */
    for (int64_t r = tid; r < n; r += PT_BLOCK) {
      if (vals.dt == vin.dt) pt_cput(vals.b, vsz, vo + r * va, pt_bits(vin.b, isz, io + r * sa));
      else pt_copy_elem(vals.b, vals.dt, vo + r * va, vin.b, vin.dt, io + r * sa);
      pt_cput(idx.b, 8, xo + r * ia, uint64_t(r));
    }
    memoryBarrierBuffer();
    barrier();
    for (int64_t k = 2; k <= np; k <<= 1) {
      for (int64_t j = k >> 1; j > 0; j >>= 1) {
        for (int64_t t0 = tid; t0 < np / 2; t0 += PT_SORT_UNROLL * PT_BLOCK) [[unroll]] for (int u = 0; u < PT_SORT_UNROLL; u++) {
          const int64_t t = t0 + int64_t(u * PT_BLOCK);
          const int64_t i = (t / j) * 2l * j + t % j, p = j == k >> 1 ? (i ^ (k - 1l)) : i + j;
          if (t >= np / 2 || p >= n) continue; /* past the step, or a padded slot (larger than every real pair already) */
          const uint64_t bi = pt_cbits(vals.b, vsz, vo + i * va), bp = pt_cbits(vals.b, vsz, vo + p * va);
          const int64_t ii = int64_t(pt_cbits(idx.b, 8, xo + i * ia)), ip = int64_t(pt_cbits(idx.b, 8, xo + p * ia));
          if (pt_before(pt_key_of(bp, vals.dt, desc), ip, pt_key_of(bi, vals.dt, desc), ii)) {
            pt_cput(vals.b, vsz, vo + i * va, bp);
            pt_cput(vals.b, vsz, vo + p * va, bi);
            pt_cput(idx.b, 8, xo + i * ia, uint64_t(ip));
            pt_cput(idx.b, 8, xo + p * ia, uint64_t(ii));
          }
        }
        memoryBarrierBuffer();
        barrier();
      }
    }
  }
}
`;
