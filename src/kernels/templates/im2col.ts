/**
 * im2col written once (ROW launch over the N * C planes; the CPU's is im2col.c): a convolution's columns, each tap of
 * the kernel a row of OH * OW output pixels, zeros where the tap falls in the padding. Invocation tid takes output
 * pixels tid, tid + PT_BLOCK, ... and writes all kH * kW taps of each, so the pixel's division is paid once and every
 * tap's writes are consecutive across the group.
 */
import type { Dialect } from "../dialect.ts";

/** The im2col kernel. */
export const im2col = (d: Dialect): string =>
  String.raw`
/* im2col [N, C, H, W, kH, kW, sh, sw, ph, pw, dh, dw, OH, OW, IN VIEW, OUT VIEW]; ROW launch over N * C. */
${d.bounds(4)}${d.kernel}
  const pt_i64 C = PT_A(PT_IM2COL_C), H = PT_A(PT_IM2COL_H), W = PT_A(PT_IM2COL_W);
  const int KH = int(PT_A(PT_IM2COL_KH)), KW = int(PT_A(PT_IM2COL_KW)), OW = int(PT_A(PT_IM2COL_OW));
  const pt_i64 SH = PT_A(PT_IM2COL_SH), SW = PT_A(PT_IM2COL_SW), PH = PT_A(PT_IM2COL_PH), PW = PT_A(PT_IM2COL_PW);
  const pt_i64 DH = PT_A(PT_IM2COL_DH), DW = PT_A(PT_IM2COL_DW);
  const int P = int(PT_A(PT_IM2COL_OH)) * OW;
  const pt_i64 planes = PT_A(PT_IM2COL_N) * C;
  const pt_view vin = PT_VIEW(PT_IM2COL_IN), vout = PT_VIEW(PT_IM2COL_OUT);
  for (pt_i64 row = pt_i64(PT_GROUP_ID); row < planes; row += pt_i64(PT_GROUPS)) {
    const pt_i64 nb = row / C, cc = row % C;
    const pt_i64 io = vin.off + nb * vin.st[0] + cc * vin.st[1], oo = vout.off + nb * vout.st[0] + cc * vout.st[1];
    for (int p = PT_TID; p < P; p += PT_BLOCK) {
      const int oy = p / OW, ox = p - oy * OW;
      const pt_i64 y0 = pt_i64(oy) * SH - PH, x0 = pt_i64(ox) * SW - PW, op = oo + pt_i64(p) * vout.st[3];
      for (int i = 0; i < KH; i++) {
        const pt_i64 y = y0 + pt_i64(i) * DH;
        const bool rowin = y >= pt_i64(0) && y < H;
        for (int j = 0; j < KW; j++) {
          const pt_i64 x = x0 + pt_i64(j) * DW;
          float v = 0.0f;
          if (rowin && x >= pt_i64(0) && x < W) v = pt_raw_f32(vin.b, io + y * vin.st[2] + x * vin.st[3]);
          pt_put_f32(vout.b, op + pt_i64(i * KW + j) * vout.st[2], v);
        }
      }
    }
  }
}
`;
