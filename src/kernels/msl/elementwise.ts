/**
 * Metal's elementwise programs: the template's (templates/elementwise.ts) in MSL's spelling
 * of the ops, with its own ops for f64 registers, and the ewreduce program over Metal's
 * reduce row. Metal runs the general program for every layout (no linear-layout program:
 * none was ever measured on a Mac).
 *
 * Compute types: f32 is float, i32 int, i64 long. f64 registers (the CPU's double, which
 * creation ops use for the index and constants) are float-float pt_df values (df.ts):
 * exact for integers below 2^48, about 2^-47 relative for + - * / sqrt, float accuracy
 * for transcendental ops and pow. Constants arrive from the driver as an exact integer
 * (ai) or a float (af): an integer constant is exact, any other is rounded to float.
 */
import { KERNEL_HEAD, MSL_DIALECT, PREAMBLE } from "./preamble.ts";
import { DF_HELPERS, f32 } from "./df.ts";
import { EW_HELPERS } from "./ew_helpers.ts";
import { REDUCE_CORE } from "./reduce.ts";
import { type EwEmitter, F32, F64, I32, I64 } from "../decode.ts";
import { opsEmitter, type OpSpelling } from "../templates/ops.ts";
import { commonSpelling, ctypes, ewLines, type EwPlan, EWREDUCE, place, range, SUFFIX, VIEW } from "../templates/elementwise.ts";
import { VIEW_SLOTS } from "../slots.ts";

const CTYPE = ctypes("pt_df");

type Op = (x: string) => string;
/** Float functions, by op, that a df register computes on its float part. */
const FLOAT_FN: Record<number, string> = {
  15: "exp",
  16: "exp2",
  17: "log",
  18: "log2",
  19: "pt_log1p",
  22: "sin",
  23: "cos",
  24: "tan",
  25: "tanh",
  38: "pt_erf",
  39: "pt_erfc",
  40: "pt_expm1",
  41: "asin",
  42: "acos",
  43: "atan",
  44: "sinh",
  45: "cosh",
  46: "asinh",
  47: "acosh",
  48: "atanh",
  49: "log10",
};

/** The df (f64) register's ops, in place of templates/ops.ts's: Metal has no double. */
const ONE = "pt_df_of(1.0f)";
const UNARY_DF: Record<number, Op> = {
  ...Object.fromEntries(Object.entries(FLOAT_FN).map(([op, f]) => [op, (x: string) => `pt_df_of(${f}(${x}.hi))`])),
  28: (x) => `pt_df_of(${F32_OPS.unary(28, `${x}.hi`, F32)})`,
  10: (x) => `pt_df_neg(${x})`,
  11: (x) => `(signbit(${x}.hi) ? pt_df_neg(${x}) : ${x})`,
  12: (x) => `(${x}.hi > 0.0f ? ${ONE} : ${x}.hi < 0.0f ? pt_df_of(-1.0f) : ${x})`,
  13: (x) => `pt_df_mul(${x}, ${x})`,
  14: (x) => `pt_df_div(${ONE}, ${x})`,
  20: (x) => `pt_df_sqrt(${x})`,
  21: (x) => `pt_df_div(${ONE}, pt_df_sqrt(${x}))`,
  26: (x) => `pt_df_div(${ONE}, pt_df_add(${ONE}, pt_df_of(exp(-${x}.hi))))`,
  27: (x) => `(${x}.hi < 0.0f ? pt_df_of(0.0f) : ${x})`,
  29: (x) => `pt_df_floor(${x})`,
  30: (x) => `pt_df_ceil(${x})`,
  31: (x) => `pt_df_rint(${x})`,
  32: (x) => `pt_df_trunc(${x})`,
  33: (x) => `(int)!pt_nz(${x}.hi)`,
  34: (x) => `(int)(${x}.hi != ${x}.hi)`,
  35: (x) => `(int)(fabs(${x}.hi) == PT_INF_F)`,
  36: (x) => `(int)(fabs(${x}.hi) < PT_INF_F)`,
  37: (x) => `(int)pt_nz(${x}.hi)`,
};

/** A df comparison or logic op (58..66); logic ops test nonzero (NaN is). */
function compareDf(op: number, a: string, b: string): string {
  if (op >= 64) return `(int)(pt_nz(${a}.hi) ${["&", "|", "^"][op - 64]} pt_nz(${b}.hi))`;
  const df = [`pt_df_eq(${a}, ${b})`, `!pt_df_eq(${a}, ${b})`, `pt_df_lt(${a}, ${b})`, `pt_df_le(${a}, ${b})`];
  return `(int)(${[...df, `pt_df_lt(${b}, ${a})`, `pt_df_le(${b}, ${a})`][op - 58]})`;
}

/** A df binary op (50..70; the bitwise ops have no float meaning). */
function binaryDf(op: number, x: string, y: string): string | undefined {
  if (op >= 71) return undefined;
  if (op === 67) return `pt_df_of(atan2(${x}.hi, ${y}.hi))`;
  if (op === 68) return `pt_df_of(pt_hypot(${x}.hi, ${y}.hi))`;
  if (op === 69) return `pt_df_fmod(${x}, ${y})`;
  if (op === 70) return `pt_df_floordiv_py(${x}, ${y})`;
  if (op >= 58) return compareDf(op, x, y);
  if (op <= 53) return `pt_df_${["add", "sub", "mul", "div"][op - 50]}(${x}, ${y})`;
  if (op === 54) return `pt_df_of(pt_pow(${x}.hi, ${y}.hi))`;
  if (op === 55) return `pt_df_mod_py(${x}, ${y})`;
  const [p, q] = op === 56 ? [y, x] : [x, y]; // MAX, MIN: a NaN in either operand wins
  return `(${x}.hi != ${x}.hi || pt_df_lt(${p}, ${q}) ? ${x} : ${y})`;
}

/** CAST to or from a df register (ew_cast): float -> int truncates with NaN -> 0 and saturation. */
function castDf(x: string, to: number, from: number): string {
  if (to === F32) return `${x}.hi`;
  if (to === F64) return from === F32 ? `pt_df_of(${x})` : `pt_df_of_long((long)${x})`;
  return to === I32 ? `pt_df_to_i32(${x})` : `pt_df_to_i64(${x})`;
}

/** MSL's own names for the C library's float functions. */
const MSL_FN: Record<string, string> = {
  log1p: "pt_log1p",
  erf: "pt_erf",
  erfc: "pt_erfc",
  expm1: "pt_expm1",
  hypot: "pt_hypot",
  pow: "pt_pow",
};

/** MSL's spelling of the ops (templates/ops.ts) for f32, i32 and i64 registers. */
const SPELLING: OpSpelling = {
  ...commonSpelling("msl renderer", "pt_mtl_params", "pt_df"),
  lit: (_, v) => v.includes(".") ? f32(Math.fround(Number(v))) : `${v}.0f`,
  math: (name) => MSL_FN[name] ?? name,
  isnan: (x) => `${x} != ${x}`,
  isinf: (x) => `fabs(${x}) == PT_INF_F`,
  isfinite: (x) => `fabs(${x}) < PT_INF_F`,
  nonzero: (x) => `pt_nz(${x})`,
  iszero: (x) => `!pt_nz(${x})`,
  constant: (ct, k) => ct === F32 ? `PT_F(${k})` : `pt_const_${SUFFIX[ct]}(p, ${k})`,
  index: (ct) => ct === I64 ? "@i" : ct === I32 ? "pt_wrap32(@i)" : ct === F64 ? "pt_df_of_long(@i)" : "(float)@i",
  onError: "return;",
};
const F32_OPS = opsEmitter(SPELLING);

/** MSL's spelling of the ops: templates/ops.ts's, with df registers' own; a failing integer op reports, then runs `onError`. */
function emitter(onError: string): EwEmitter {
  const ops = opsEmitter({ ...SPELLING, onError });
  return {
    ...ops,
    cast: (x, to, from) => to === from || (to !== F64 && from !== F64) ? ops.cast(x, to, from) : castDf(x, to, from),
    unary: (op, x, ct) => ct === F64 ? UNARY_DF[op]?.(x) : ops.unary(op, x, ct),
    binary: (op, x, y, ct, body) => ct === F64 ? binaryDf(op, x, y) : ops.binary(op, x, y, ct, body),
  };
}

/** Metal's plan for the elementwise template: its f64 register's zero is a float-float. */
export const MSL_EW: EwPlan = {
  dialect: MSL_DIALECT,
  emitter,
  head: () => `${PREAMBLE}${DF_HELPERS}${EW_HELPERS}`,
  zero: ["0", "pt_df_of(0.0f)", "0", "0"],
};

/**
 * Per compute type of E (F32, F64, I32, I64): its value x as the reduce template's loads
 * (pt_ld_df, pt_ld_i, pt_is_nonzero) read a stored element of E's dtype. Metal has
 * no f64 views, so an f64 E (a df value) has no reduce to match: it gives the df itself.
 */
const E_READS = [
  { df: "pt_df_of(x)", i: "pt_f2i64(x)", nz: "pt_nz(x)" },
  { df: "x", i: "pt_df_to_i64(x)", nz: "pt_nz(x.hi)" },
  { df: "pt_df_of_long(x)", i: "(long)x", nz: "x != 0" },
  { df: "pt_df_of_long(x)", i: "x", nz: "x != 0" },
];

/**
 * The pt_main of an "ewreduce" program (blocks.h), from the same bytecode as the ew program:
 * reduce's row (REDUCE_CORE's pt_reduce_row, a template over its element source) over the
 * element source pt_ew_row, whose position k is E's element base + k computed by the ew
 * program's instructions up to its STORE. Reduce walks the materialized E's row (one inner
 * dim of stride 1) in the same order, so the folds and the result are the same. A failing
 * integer op reports its element, as ew does, and gives 0 (the reduction runs on).
 */
export function renderEwReduce(words: Int32Array): string {
  // A failing op ends the element with a zero of E's type, known once the bytecode is read.
  const { ninputs, hoisted, loads, body: lines, store } = ewLines(MSL_EW, words, EWREDUCE.views, "@ret");
  const body = lines.map((l) => l.replaceAll("@ret", `return ${MSL_EW.zero[store.ct]};`));
  const T = CTYPE[store.ct], reads = E_READS[store.ct];
  const inputs = range(ninputs, 1);
  const each = (f: (v: number) => string, sep = "\n") => inputs.map(f).join(sep);
  const coords = ninputs === 0 ? "" : `  long ${each((v) => `q${v} = s.v[${v - 1}].off`, ", ")};
  if (s.lin) {
${each((v) => `    q${v} += i;`)}
  } else {
    long r = i;
    for (int d = s.rank - 1; d >= 0; d--) {
      const long c = r % s.shape[d];
      r /= s.shape[d];
${each((v) => `      q${v} += c * s.v[${v - 1}].st[d];`)}
    }
  }
`;
  const src = (name: string, R: string, read: string) =>
    `inline ${R} pt_src_${name}(const thread pt_ew_row &s, long k) {
  const ${T} x = pt_ew_value(s, s.base + k);
  return ${read};
}`;
  return `${MSL_EW.head(0, { math: true, ints: true }, true)}
/* ewreduce's element source: E's element i is the expression's value there, of type ${T}. */
typedef struct {
  device pt_mtl_error *err;
  long base; /* E's element at the row's position 0 */
  int rank;
  bool lin; /* every input row-major contiguous: element i at offset + i */
  long shape[PT_MAX_RANK];
${ninputs === 0 ? "" : `  pt_view v[${ninputs}]; /* the inputs */\n`}${hoisted.map((h) => `  ${h.T} ${h.name};\n`).join("")}} pt_ew_row;
inline ${T} pt_ew_value(const thread pt_ew_row &s, long i) {
  device pt_mtl_error *err = s.err;
${each((v) => `  const pt_ptr vb${v} = s.v[${v - 1}].b;\n  const int dt${v} = s.v[${v - 1}].dt;`)}
${hoisted.map((h) => `  const ${h.T} ${h.name} = s.${h.name};\n`).join("")}${coords}${
    place([...loads.map((l) => `const ${l.T} ${l.name} = ${l.expr};`), ...body], "  ", "", "i", (v) => `q${v}`)
  }
  return ${store.reg.replaceAll("@u", "")};
}
${src("df", "pt_df", reads.df)}
${src("i", "long", reads.i)}
${src("nz", "bool", reads.nz)}
${REDUCE_CORE}
/* ewreduce [op, ddof, rank, shape x8, start, rows, rowlen, nviews, OUT VIEW, IN VIEW x
 * (nviews - 1), nconst, const x nconst]; ROW launch over the rows. Row r is E's elements
 * start + r * rowlen, ... (E: the ew program's values over the shape); its result goes to
 * OUT at offset + r * OUT's stride 0. */
${KERNEL_HEAD}
  threadgroup pt_acc sh[PT_BLOCK];
  pt_ew_row src;
  src.err = err;
  src.rank = (int)PT_A(PT_EWREDUCE_RANK);
  pt_shape_at(p, PT_EWREDUCE_SHAPE, src.rank, src.shape);
${each((v) => `  src.v[${v - 1}] = pt_view_at(p, B, ${EWREDUCE.views + VIEW_SLOTS * v});`)}
  src.lin = ${
    each((v) => `pt_ew_linear(PT_PASS PT_EWREDUCE_SHAPE, ${EWREDUCE.views + VIEW.strides + VIEW_SLOTS * v}, src.rank)`, " && ") || "true"
  };
${
    hoisted.map((h) => `  src.${h.name} = ${h.expr};\n`).join("")
  }  const long start = PT_A(PT_EWREDUCE_START), rows = PT_A(PT_EWREDUCE_ROWS), n = PT_A(PT_EWREDUCE_ROWLEN);
  const pt_view vout = pt_view_at(p, B, PT_EWREDUCE_VIEWS);
  const bool one = n <= PT_SHORT_ROW; /* a short row a thread (blocks.h's ROW work), else a row a group */
  const long first = one ? long(group.x) * PT_BLOCK + lid : long(group.x), stride = one ? long(groups.x) * PT_BLOCK : long(groups.x);
  for (long row = first; row < rows; row += stride) {
    src.base = start + row * n;
    pt_reduce_row(PT_PASS src, ${store.ct === F32 || store.ct === F64}, n, vout, vout.off + row * vout.st[0], sh, lid, one);
  }
}
`;
}
