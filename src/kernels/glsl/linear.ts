/**
 * The linear-layout program of an elementwise bytecode (elementwise.ts parses the bytecode
 * and calls renderLinear): launch.ts picks it when every view is contiguous over one dim
 * and view v is in buffer v. The views' dtypes are fixed, so each load and store is the
 * general helper's conversion for that dtype, written out (fromRaw, toRaw), with no
 * coordinates, buffer lookup or dtype switch; four elements of each view move as one
 * vector when every view's first element is aligned for it. It reads the general
 * program's block.
 */
import { F32, F64, fail, I32, UNROLL } from "./elementwise.ts";

/** dtype codes (dtype.ts). */
const D_F32 = 0, D_F16 = 1, D_BF16 = 2, D_F64 = 3, D_I32 = 4, D_I64 = 5, D_U8 = 6, D_BOOL = 7;

/**
 * Per dtype code: bytes per element, the preamble's raw scalar load and store, and the
 * block that moves four elements as one vector with the local vector type it is read into
 * (16- and 8-bit elements widen to uvec4: their storage types have no arithmetic).
 */
const DTYPE_IO: readonly { size: number; ld: string; st: string; vec: string; wide: string; narrow: string }[] = [
  { size: 4, ld: "pt_raw_f32", st: "pt_put_f32", vec: "PtV4F32", wide: "vec4", narrow: "" },
  { size: 2, ld: "pt_raw_u16", st: "pt_put_u16", vec: "PtV4U16", wide: "uvec4", narrow: "u16vec4" },
  { size: 2, ld: "pt_raw_u16", st: "pt_put_u16", vec: "PtV4U16", wide: "uvec4", narrow: "u16vec4" },
  { size: 8, ld: "pt_raw_f64", st: "pt_put_f64", vec: "PtV4F64", wide: "dvec4", narrow: "" },
  { size: 4, ld: "pt_raw_i32", st: "pt_put_i32", vec: "PtV4I32", wide: "ivec4", narrow: "" },
  { size: 8, ld: "pt_raw_i64", st: "pt_put_i64", vec: "PtV4I64", wide: "i64vec4", narrow: "" },
  { size: 1, ld: "pt_raw_u8", st: "pt_put_u8", vec: "PtV4U8", wide: "uvec4", narrow: "u8vec4" },
  { size: 1, ld: "pt_raw_u8", st: "pt_put_u8", vec: "PtV4U8", wide: "uvec4", narrow: "u8vec4" },
];

/** The vector blocks, aligned to their size (the program checks each view's address). */
const VEC_BLOCKS: Readonly<Record<string, string>> = {
  PtV4F32: "layout(buffer_reference, std430, buffer_reference_align = 16) buffer PtV4F32 { vec4 v; };",
  PtV4U16: "layout(buffer_reference, std430, buffer_reference_align = 8) buffer PtV4U16 { u16vec4 v; };",
  PtV4F64: "layout(buffer_reference, std430, buffer_reference_align = 32) buffer PtV4F64 { dvec4 v; };",
  PtV4I32: "layout(buffer_reference, std430, buffer_reference_align = 16) buffer PtV4I32 { ivec4 v; };",
  PtV4I64: "layout(buffer_reference, std430, buffer_reference_align = 32) buffer PtV4I64 { i64vec4 v; };",
  PtV4U8: "layout(buffer_reference, std430, buffer_reference_align = 4) buffer PtV4U8 { u8vec4 v; };",
};

/**
 * A raw element x of dtype dt (as the DTYPE_IO load gives it: float, double, int, int64_t,
 * or the bits of f16/bf16/u8/bool in a uint) converted to compute type ct: the same
 * expressions pt_ew_ld_<ct> evaluates for that dtype, so the value is the same.
 */
function fromRaw(x: string, ct: number, dt: number): string {
  const f32 = dt === D_F16 ? `pt_f16_to_f32(${x})` : dt === D_BF16 ? `pt_bf16_to_f32(${x})` : x; // F32, F16, BF16
  const isF = dt === D_F32 || dt === D_F16 || dt === D_BF16;
  switch (ct) {
    case F32:
      return isF ? f32 : dt === D_BOOL ? `(${x} != 0u ? 1.0 : 0.0)` : `float(${x})`;
    case F64:
      return isF ? `double(${f32})` : dt === D_F64 ? x : dt === D_BOOL ? `(${x} != 0u ? 1.0lf : 0.0lf)` : `double(${x})`;
    case I32:
      if (isF) return `pt_f2i32(double(${f32}))`;
      return dt === D_F64 ? `pt_f2i32(${x})` : dt === D_I32 ? x : dt === D_BOOL ? `(${x} != 0u ? 1 : 0)` : `int(${x})`;
    default:
      if (isF) return `pt_f2i64(double(${f32}))`;
      return dt === D_F64 ? `pt_f2i64(${x})` : dt === D_I64 ? x : dt === D_BOOL ? `(${x} != 0u ? 1l : 0l)` : `int64_t(${x})`;
  }
}

/** A double d as pt_st_f64 stores it in dtype dt, as the raw value DTYPE_IO's store takes. */
function rawOfF64(d: string, dt: number): string {
  switch (dt) {
    case D_F32:
      return `float(${d})`;
    case D_F16:
      return `pt_f32_to_f16(float(${d}))`;
    case D_BF16:
      return `pt_f32_to_bf16(float(${d}))`;
    case D_F64:
      return d;
    case D_I32:
      return `pt_f2i32(${d})`;
    case D_I64:
      return `pt_f2i64(${d})`;
    case D_U8:
      return `(uint(pt_f2i64(${d})) & 0xffu)`;
    default:
      return `(${d} != 0.0lf ? 1u : 0u)`;
  }
}

/** An int64_t v as pt_st_i64 stores it in dtype dt. */
function rawOfI64(v: string, dt: number): string {
  switch (dt) {
    case D_I32:
      return `int(${v})`;
    case D_I64:
      return v;
    case D_U8:
      return `(uint(${v}) & 0xffu)`;
    case D_BOOL:
      return `(${v} != 0l ? 1u : 0u)`;
    default:
      return rawOfF64(`double(${v})`, dt);
  }
}

/** A value v of compute type ct as pt_ew_st_<ct> stores it in dtype dt. */
function toRaw(v: string, ct: number, dt: number): string {
  if (ct === F64) return rawOfF64(v, dt);
  const f = ct === F32 ? v : `float(${v})`; // ew_st_f32/i32/i64 convert to f32 themselves for f32, f16, bf16
  if (dt === D_F32) return f;
  if (dt === D_F16) return `pt_f32_to_f16(${f})`;
  if (dt === D_BF16) return `pt_f32_to_bf16(${f})`;
  if (ct === F32) return rawOfF64(`double(${v})`, dt);
  return rawOfI64(ct === I32 ? `int64_t(${v})` : v, dt);
}

/**
 * The main() of the linear-layout program: every view is contiguous over one dim (rank
 * <= 1 after collapsing, unit strides), view v is buffer v, and `dtypes` are the views'
 * dtype codes (output first). The block is the general program's; only n (slot 1) and the
 * views' offsets are read from it. When every view's first element is aligned for it, four
 * consecutive elements of each view move as one vector; the rest go one by one, UNROLL a
 * step as in the general program's contiguous path.
 */
export function renderLinear(
  dtypes: readonly number[],
  nviews: number,
  hoisted: readonly string[],
  loads: readonly { T: string; name: string; ct: number; view: number }[],
  body: readonly string[], // without the STORE line
  store: { ct: number; value: string },
): string {
  if (dtypes.length !== nviews || dtypes.some((c) => !(Number.isInteger(c) && c >= 0 && c < DTYPE_IO.length))) {
    fail(`bad linear layout [${dtypes}] for ${nviews} views`);
  }
  const io = dtypes.map((c) => DTYPE_IO[c]);
  const used = [0, ...new Set(loads.map((l) => l.view))].sort((a, b) => a - b); // the views the program touches
  const units = Array.from({ length: UNROLL }, (_, u) => u);
  const lanes = "xyzw";
  const place = (l: string, u: number, i: string) => l.replaceAll("@u", `_${u}`).replaceAll("@i", i);
  // Vector path: unit u is lane u of every view's vector.
  const vecUnits = units.map((u) =>
    [
      ...loads.map((l) => `${l.T} ${l.name} = ${fromRaw(`V${l.view}.${lanes[u]}`, l.ct, dtypes[l.view])};`),
      ...body,
      `V0.${lanes[u]} = ${toRaw(store.value, store.ct, dtypes[0])};`,
    ].map((l) => `    ${place(l, u, `(4l * j + ${u}l)`)}`).join("\n")
  );
  const vecAt = (v: number) => `${io[v].vec}(a${v} + uint64_t(j) * ${4 * io[v].size}ul).v`;
  const vecLoads = used.slice(1).map((v) => {
    const x = vecAt(v);
    return `    const ${io[v].wide} V${v} = ${io[v].narrow ? `${io[v].wide}(${x})` : x};`;
  });
  // Scalar path: UNROLL elements a step, every unit's loads before any unit's stores.
  const scalarLoads = units.map((u) =>
    [
      `    const int64_t i${u} = i + ${u}l * PT_STEP;`,
      ...loads.map((l) =>
        `    ${l.T} ${l.name} = ${l.T}(0);\n    if (i${u} < n) ${l.name} = ${
          fromRaw(`${io[l.view].ld}(a${l.view}, i${u})`, l.ct, dtypes[l.view])
        };`
      ),
    ].map((l) => place(l, u, `i${u}`)).join("\n")
  );
  const scalarBody = units.map((u) =>
    `    if (i${u} < n) {\n${
      [...body, `${io[0].st}(a0, i${u}, ${toRaw(store.value, store.ct, dtypes[0])});`].map((l) => `      ${place(l, u, `i${u}`)}`)
        .join("\n")
    }\n    }`
  );
  const blocks = [...new Set(used.map((v) => io[v].vec))].map((b) => VEC_BLOCKS[b]);
  return `${blocks.join("\n")}
/* ew, linear layout: every view is contiguous over one dim and view v is buffer v, with the
 * dtypes [${dtypes.join(", ")}] fixed when the program was made, so elements are reached with no
 * coordinates, buffer lookup or dtype switch. The block is ew's: [rank, shape x8, nviews,
 * VIEW x nviews (view 0 = output), nconst, const x nconst]; n is shape[0] (1 for a 0-d
 * tensor). ELEMENT launch over the output's elements. */
void main() {
  const int64_t n = PT_A(1);
${
    used.map((v) =>
      `  const uint64_t a${v} = PT_P.buf[${v}] + uint64_t(PT_A(${12 + 11 * v})) * ${io[v].size}ul; /* view ${v}'s first element */`
    ).join("\n")
  }
${hoisted.join("\n")}
  /* Four elements a step as one vector of each view, when every view's first element is
   * aligned for its vector. */
  const bool aligned = ${used.map((v) => `(a${v} & ${4 * io[v].size - 1}ul) == 0ul`).join(" && ")};
  const int64_t nv = aligned ? n / 4l : 0l;
  for (int64_t j = PT_FIRST; j < nv; j += PT_STEP) {
${vecLoads.join("\n")}
    ${io[0].wide} V0;
${vecUnits.join("\n")}
    ${vecAt(0)} = ${io[0].narrow ? `${io[0].narrow}(V0)` : "V0"};
  }
  /* The elements after the last whole vector (all of them when a view is unaligned). */
  for (int64_t i = nv * 4l + PT_FIRST; i < n; i += ${UNROLL}l * PT_STEP) {
${scalarLoads.join("\n")}
${scalarBody.join("\n")}
  }
}
`;
}
