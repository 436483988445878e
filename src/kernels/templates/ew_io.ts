/**
 * The elementwise programs' loads and stores between a view's dtype (read at run time) and
 * a compute type, written once (native ew_io.h is the CPU's): a float -> int conversion
 * truncates with NaN -> 0 and saturates, an int -> narrower int keeps the low bits, bool
 * is 0 or 1 and any nonzero (NaN too) stores as 1. They read and write through the
 * dialect's raw accessors (pt_raw_<t>(b, i), pt_put_<t>(b, i, v): element i of buffer b as
 * t's bits, u8 and u16 as pt_u32). f64 views and registers exist where the language has a
 * double (Metal's f64 registers are float-float: msl/ew_helpers.ts loads and stores them).
 */
export const ewIo = (hasF64: boolean): string => {
  const f64 = (text: string) => hasF64 ? text : "";
  return String.raw`
PT_FN float pt_ew_ld_f32(PT_PTR b, int dt, pt_i64 i) {
  switch (dt) {
  case PT_F32: return pt_raw_f32(b, i);
  case PT_F16: return pt_f16_to_f32(pt_raw_u16(b, i));
  case PT_BF16: return pt_bf16_to_f32(pt_raw_u16(b, i));
${f64("  case PT_F64: return float(pt_raw_f64(b, i));\n")}  case PT_I32: return float(pt_raw_i32(b, i));
  case PT_I64: return float(pt_raw_i64(b, i));
  case PT_U8: return float(pt_raw_u8(b, i));
  default: return pt_raw_u8(b, i) != pt_u32(0) ? float(1) : float(0);
  }
}
PT_FN int pt_ew_ld_i32(PT_PTR b, int dt, pt_i64 i) {
  switch (dt) {
  case PT_F32: return pt_f2i32(pt_raw_f32(b, i));
  case PT_F16: return pt_f2i32(pt_f16_to_f32(pt_raw_u16(b, i)));
  case PT_BF16: return pt_f2i32(pt_bf16_to_f32(pt_raw_u16(b, i)));
${f64("  case PT_F64: return pt_f2i32(pt_raw_f64(b, i));\n")}  case PT_I32: return pt_raw_i32(b, i);
  case PT_I64: return pt_wrap32(pt_raw_i64(b, i));
  case PT_U8: return int(pt_raw_u8(b, i));
  default: return pt_raw_u8(b, i) != pt_u32(0) ? 1 : 0;
  }
}
PT_FN pt_i64 pt_ew_ld_i64(PT_PTR b, int dt, pt_i64 i) {
  if (dt == PT_BOOL) return pt_raw_u8(b, i) != pt_u32(0) ? pt_i64(1) : pt_i64(0);
  return pt_ld_i64(b, dt, i);
}
${
    f64(String.raw`PT_FN double pt_ew_ld_f64(PT_PTR b, int dt, pt_i64 i) {
  if (dt == PT_BOOL) return pt_raw_u8(b, i) != pt_u32(0) ? double(1) : double(0);
  return pt_ld_f64(b, dt, i);
}
/* An f64 register is stored exactly as the preamble's pt_st_f64 stores any double. */
#define pt_ew_st_f64 pt_st_f64
`)
  }PT_FN void pt_ew_st_f32(PT_PTR b, int dt, pt_i64 i, float v) {
  switch (dt) {
  case PT_F32: pt_put_f32(b, i, v); break;
  case PT_F16: pt_put_u16(b, i, pt_f32_to_f16(v)); break;
  case PT_BF16: pt_put_u16(b, i, pt_f32_to_bf16(v)); break;
${f64("  case PT_F64: pt_put_f64(b, i, double(v)); break;\n")}  case PT_I32: pt_put_i32(b, i, pt_f2i32(v)); break;
  case PT_I64: pt_put_i64(b, i, pt_f2i64(v)); break;
  case PT_U8: pt_put_u8(b, i, pt_u32(pt_f2i64(v)) & pt_u32(255)); break;
  default: pt_put_u8(b, i, pt_f32_nz(v) ? pt_u32(1) : pt_u32(0)); break;
  }
}
PT_FN void pt_ew_st_i32(PT_PTR b, int dt, pt_i64 i, int v) {
  switch (dt) {
  case PT_F32: pt_put_f32(b, i, float(v)); break;
  case PT_F16: pt_put_u16(b, i, pt_f32_to_f16(float(v))); break;
  case PT_BF16: pt_put_u16(b, i, pt_f32_to_bf16(float(v))); break;
${f64("  case PT_F64: pt_put_f64(b, i, double(v)); break;\n")}  case PT_I32: pt_put_i32(b, i, v); break;
  case PT_I64: pt_put_i64(b, i, pt_i64(v)); break;
  case PT_U8: pt_put_u8(b, i, pt_u32(v) & pt_u32(255)); break;
  default: pt_put_u8(b, i, v != 0 ? pt_u32(1) : pt_u32(0)); break;
  }
}
PT_FN void pt_ew_st_i64(PT_PTR b, int dt, pt_i64 i, pt_i64 v) {
  switch (dt) {
  case PT_F32: pt_put_f32(b, i, float(v)); break;
  case PT_F16: pt_put_u16(b, i, pt_f32_to_f16(float(v))); break;
  case PT_BF16: pt_put_u16(b, i, pt_f32_to_bf16(float(v))); break;
  default: pt_st_i64(b, dt, i, v); break;
  }
}
/* Whether the view whose strides start at slot k has its elements at offset + i for element
 * i of the shape at slot s (row-major contiguous; size-1 dims may have any stride). */
PT_FN bool pt_ew_linear(PT_CTX int s, int k, int rank) {
  pt_i64 dense = 1;
  bool ok = true;
  PT_UNROLL
  for (int d = PT_MAX_RANK - 1; d >= 0; d--) {
    const pt_i64 e = d < rank ? PT_A(s + d) : pt_i64(1);
    if (e != pt_i64(1)) {
      ok = ok && PT_A(k + d) == dense;
      dense *= e;
    }
  }
  return ok;
}
`;
};
