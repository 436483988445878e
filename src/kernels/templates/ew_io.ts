/**
 * The elementwise programs' loads and stores between a view's dtype and a compute type,
 * written once (native ew_io.h is the CPU's): a float -> int conversion truncates with NaN
 * -> 0 and saturates, an int -> narrower int keeps the low bits, bool is 0 or 1 and any
 * nonzero (NaN too) stores as 1. Each conversion is one expression of a dtype's raw value
 * (fromRaw, toRaw), over the dialect's raw accessors (pt_raw_<t>(b, i), pt_put_<t>(b, i, v):
 * element i of buffer b as t's bits, u8 and u16 as pt_u32). The general program's helpers
 * (ewIo) switch over them with the dtype read at run time; the linear-layout program
 * (ew_linear.ts) writes the one its fixed dtype needs. f64 views and registers exist where
 * the language has a double (Metal's f64 registers are float-float: msl/ew_helpers.ts loads
 * and stores them).
 */
import { F32, F64, I32 } from "../decode.ts";

/** dtype codes (dtype.ts), and the preambles' names for them. */
const D_F32 = 0, D_F16 = 1, D_BF16 = 2, D_F64 = 3, D_I32 = 4, D_I64 = 5, D_U8 = 6, D_BOOL = 7, D_I8 = 8, D_I16 = 9;
const DT_NAME = ["PT_F32", "PT_F16", "PT_BF16", "PT_F64", "PT_I32", "PT_I64", "PT_U8", "PT_BOOL", "PT_I8", "PT_I16"];

/**
 * Per dtype code: bytes per element, and the name `t` of its raw accessors (pt_raw_<t>,
 * pt_put_<t>) and of the vector kind that moves four (f16, bf16 and i16 as u16 bits, bool and i8 as u8: fromRaw
 * sign-extends the signed ones, and a store keeps the low bits either way).
 */
export const DTYPE_IO: readonly { size: number; t: string }[] = [
  { size: 4, t: "f32" },
  { size: 2, t: "u16" },
  { size: 2, t: "u16" },
  { size: 8, t: "f64" },
  { size: 4, t: "i32" },
  { size: 8, t: "i64" },
  { size: 1, t: "u8" },
  { size: 1, t: "u8" },
  { size: 1, t: "u8" },
  { size: 2, t: "u16" },
];

/**
 * A raw element x of dtype dt (as pt_raw_<t> gives it: float, double, int, pt_i64, or the
 * bits of f16/bf16/u8/bool/i8/i16) converted to compute type ct.
 */
export function fromRaw(raw: string, ct: number, dt: number): string {
  const x = dt === D_I8 ? `pt_sext8(${raw})` : dt === D_I16 ? `pt_sext16(${raw})` : raw;
  const f32 = dt === D_F16 ? `pt_f16_to_f32(${x})` : dt === D_BF16 ? `pt_bf16_to_f32(${x})` : x; // F32, F16, BF16
  const isF = dt === D_F32 || dt === D_F16 || dt === D_BF16;
  const bool = (T: string) => `(${x} != pt_u32(0) ? ${T}(1) : ${T}(0))`;
  switch (ct) {
    case F32:
      return isF ? f32 : dt === D_BOOL ? bool("float") : `float(${x})`;
    case F64:
      return isF ? `double(${f32})` : dt === D_F64 ? x : dt === D_BOOL ? bool("double") : `double(${x})`;
    case I32:
      if (isF || dt === D_F64) return `pt_f2i32(${f32})`;
      return dt === D_I32 ? x : dt === D_BOOL ? bool("int") : dt === D_I64 ? `pt_wrap32(${x})` : `int(${x})`;
    default:
      if (isF || dt === D_F64) return `pt_f2i64(${f32})`;
      return dt === D_I64 ? x : dt === D_BOOL ? bool("pt_i64") : `pt_i64(${x})`;
  }
}

/** The mask of the bits a narrow integer dtype (u8, i8, i16) stores. */
const lowBits = (dt: number) => (dt === D_I16 ? 65535 : 255);

/** A double d (or a float, but to f64) as pt_st_f64 stores it in dtype dt (not f32, f16 or bf16), as pt_put_<t> takes it. */
function rawOfF64(d: string, dt: number): string {
  if (dt === D_F64) return d;
  if (dt === D_BOOL) return `(${d} != double(0) ? pt_u32(1) : pt_u32(0))`; // NaN is nonzero
  return dt === D_I32 ? `pt_f2i32(${d})` : dt === D_I64 ? `pt_f2i64(${d})` : `(pt_u32(pt_f2i64(${d})) & pt_u32(${lowBits(dt)}))`;
}

/** A pt_i64 v as pt_st_i64 stores it in dtype dt (not a float dtype but f64). */
function rawOfI64(v: string, dt: number): string {
  if (dt === D_I32) return `pt_wrap32(${v})`;
  if (dt === D_I64) return v;
  if (dt === D_U8 || dt === D_I8 || dt === D_I16) return `(pt_u32(${v}) & pt_u32(${lowBits(dt)}))`;
  return dt === D_BOOL ? `(${v} != pt_i64(0) ? pt_u32(1) : pt_u32(0))` : `double(${v})`;
}

/** A value v of compute type ct as dtype dt's raw value: f32, f16 and bf16 from f32 (an f64 through f32). */
export function toRaw(v: string, ct: number, dt: number): string {
  const f = ct === F32 ? v : `float(${v})`;
  if (dt === D_F32) return f;
  if (dt === D_F16) return `pt_f32_to_f16(${f})`;
  if (dt === D_BF16) return `pt_f32_to_bf16(${f})`;
  if (ct === F64) return rawOfF64(v, dt);
  if (ct === F32) {
    return dt === D_BOOL ? `(pt_f32_nz(${v}) ? pt_u32(1) : pt_u32(0))` : dt === D_F64 ? `double(${v})` : rawOfF64(v, dt);
  }
  return rawOfI64(ct === I32 ? `pt_i64(${v})` : v, dt);
}

/** The dtypes a language has: f64 views only where it has a double. */
const dtypes = (hasF64: boolean) => DT_NAME.map((_, dt) => dt).filter((dt) => hasF64 || dt !== D_F64);

/** pt_ew_ld_<ct>(b, dt, i): element i of buffer b, of dtype dt, as compute type ct (T); bool is the default case. */
function load(ct: number, T: string, suffix: string, hasF64: boolean): string {
  const cases = dtypes(hasF64).map((dt) =>
    `  ${dt === D_BOOL ? "default" : `case ${DT_NAME[dt]}`}: return ${fromRaw(`pt_raw_${DTYPE_IO[dt].t}(b, i)`, ct, dt)};`
  );
  return `PT_FN ${T} pt_ew_ld_${suffix}(PT_PTR b, int dt, pt_i64 i) {\n  switch (dt) {\n${cases.join("\n")}\n  }\n}\n`;
}

/** pt_ew_st_<ct>(b, dt, i, v): v of compute type ct (T) stored as element i of buffer b, of dtype dt. */
function store(ct: number, T: string, suffix: string, hasF64: boolean): string {
  const cases = dtypes(hasF64).map((dt) =>
    `  ${dt === D_BOOL ? "default" : `case ${DT_NAME[dt]}`}: pt_put_${DTYPE_IO[dt].t}(b, i, ${toRaw("v", ct, dt)}); break;`
  );
  return `PT_FN void pt_ew_st_${suffix}(PT_PTR b, int dt, pt_i64 i, ${T} v) {\n  switch (dt) {\n${cases.join("\n")}\n  }\n}\n`;
}

/** The general program's loads and stores, and its test of a view's layout. */
export const ewIo = (hasF64: boolean): string => {
  const both = (ct: number, T: string, suffix: string) => load(ct, T, suffix, hasF64) + store(ct, T, suffix, hasF64);
  return `
${both(F32, "float", "f32")}${both(I32, "int", "i32")}${both(3, "pt_i64", "i64")}${
    hasF64
      ? `${load(F64, "double", "f64", true)}/* An f64 register is stored exactly as the preamble's pt_st_f64 stores any double. */
#define pt_ew_st_f64 pt_st_f64
`
      : ""
  }/* Whether the view whose strides start at slot k has its elements at offset + i for element
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
