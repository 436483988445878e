/**
 * CUDA's elementwise programs: the template's (templates/elementwise.ts, ew_linear.ts) in
 * CUDA's spelling of the ops, and the ewreduce program, whose element source is CUDA's
 * reduce row (REDUCE_CORE's pt_fn_row: loads first, then values, unrolled).
 */
import { CUDA_DIALECT, preambleFor } from "./preamble.ts";
import { REDUCE_CORE } from "./reduce.ts";
import { type EwEmitter, F32, F64, I32, I64 } from "../decode.ts";
import { floorDivPy, fmodPy, intHelpers, opsEmitter } from "../templates/ops.ts";
import { ewIo } from "../templates/ew_io.ts";
import {
  commonSpelling,
  coordinates,
  ctypes,
  elementCount,
  ewLines,
  type EwPlan,
  EWREDUCE,
  place,
  range,
  shareLayout,
  SUFFIX,
  viewLocals,
} from "../templates/elementwise.ts";
import type { LinearPlan } from "../templates/ew_linear.ts";

const CTYPE = ctypes("double");
const DT_OF = ["PT_F32", "PT_F64", "PT_I32", "PT_I64"]; // the dtype that holds a compute type's values unconverted

/** Helpers only elementwise programs use (ew_ops.h's per-type ops), after the loads and stores when `io`. */
const helpers = (io: boolean) =>
  `${io ? ewIo(true) : ""}${intHelpers("pt_u32")}${fmodPy("float", "fmodf", (z, b) => `copysignf(${z}, ${b})`)}${
    fmodPy("double", "fmod", (z, b) => `copysign(${z}, ${b})`)
  }${floorDivPy("float", "fmodf", "floorf", (z, b) => `copysignf(${z}, ${b})`)}${
    floorDivPy("double", "fmod", "floor", (z, b) => `copysign(${z}, ${b})`)
  }`;

/** The libm name for compute type t: expf for f32, exp for f64. */
function fn(name: string, t: number): string {
  return t === F32 ? `${name}f` : name;
}

/** CUDA's spelling of the ops (templates/ops.ts); a failing integer op reports, then runs `onError`. */
function emitter(onError: string): EwEmitter {
  return opsEmitter({
    ...commonSpelling("cuda renderer", "pt_params", "double"),
    lit: (t, v) => `(${CTYPE[t]})${v}`,
    math: fn,
    isnan: (x) => `${x} != ${x}`,
    isinf: (x, t) => `${fn("fabs", t)}(${x}) == ${t === F32 ? "PT_INF_F" : "PT_INF"}`,
    isfinite: (x, t) => `${fn("fabs", t)}(${x}) < ${t === F32 ? "PT_INF_F" : "PT_INF"}`,
    nonzero: (x) => `${x} != 0`,
    iszero: (x) => `${x} == 0`,
    constant(ct, k) {
      const slot = `p.a[${k}]`;
      return ct === F32 ? `(float)${slot}` : ct === F64 ? slot : ct === I32 ? `pt_f2i32(${slot})` : `pt_f2i64(${slot})`;
    },
    index: (ct) => ct === I64 ? "@i" : ct === I32 ? "pt_wrap32(@i)" : `(${CTYPE[ct]})@i`,
    onError,
  });
}

/** Each vector kind's element type: four of them move as one aligned struct (a constant lane index keeps it in registers). */
const LANE: Record<string, string> = { f32: "float", u16: "pt_u16", f64: "double", i32: "int", i64: "pt_i64", u8: "pt_u8" };
const SIZE: Record<string, number> = { f32: 4, u16: 2, f64: 8, i32: 4, i64: 8, u8: 1 };

/** The linear program's views as byte pointers; a small launch (the grid covers n) skips the vector and unroll set-up. */
const CUDA_LINEAR: LinearPlan = {
  shortPath: true,
  first: (v, offset, size) => `char *const a${v} = (char *)p.buf[${v}] + PT_A(${offset}) * ${size};`,
  address: (v) => `pt_u64(a${v})`,
  at: (v, j, bytes) => `a${v} + ${j} * ${bytes}`,
  vectorType: (k) => `struct alignas(${4 * SIZE[k]}) pt_v4_${k} { ${LANE[k]} v[4]; };`,
  local: (k) => `pt_v4_${k}`,
  load: (k, at) => `*(const pt_v4_${k} *)(${at})`,
  store: (k, at, V) => `*(pt_v4_${k} *)(${at}) = ${V};`,
  lane: (V, u) => `${V}.v[${u}]`,
};

/** CUDA's plan for the elementwise template. */
export const CUDA_EW: EwPlan = {
  dialect: CUDA_DIALECT,
  emitter,
  head: (slots, _, io) => `${preambleFor(slots)}${helpers(io)}`,
  zero: ["0", "0", "0", "0"],
  linear: CUDA_LINEAR,
};

/**
 * The pt_main of an "ewreduce" program (blocks.h), from the same bytecode as the ew program:
 * the reduce template's passes (REDUCE_CORE) read E's values from `value`, the ew program's
 * instructions up to its STORE, evaluated at E's element index i. pt_fn_row walks them in
 * the reduce template's order over the materialized E (one inner dim of stride 1, rows
 * rowlen apart), so a fused reduction gives the unfused one's bits.
 */
/**
 * The ewreduce program of the bytecode; with `op` (a reduce op code), the program for that
 * op alone: the same text with the op fixed, so NVRTC and ptxas drop the other ops' passes
 * (about a quarter of the compile time). Blocks launched with it must carry that op.
 */
export function renderElementwiseReduce(words: Int32Array, op?: number): string {
  const { ninputs, nviews, hoisted, loads, body, slots, store } = ewLines(CUDA_EW, words, EWREDUCE.views, "return 0;");
  const value = { name: store.reg, type: store.ct };
  const inputs = range(ninputs, 1);
  const T = CTYPE[value.type], DT = DT_OF[value.type];
  const each = (f: (v: number) => string, sep = "\n") => inputs.map(f).join(sep);
  // Coordinates cost a division per dim: the reduction's unrolled loops hold many copies of
  // the expression, so they are found out of line, and only for rows that need them.
  const coords = ninputs === 0 ? "" : `
/* The inputs' offsets (less their views' offsets) of E's element i, from its coordinates. */
typedef struct {
  pt_i64 q[${ninputs}];
} pt_ew_offsets;
#ifndef PT_NOINLINE /* a C++ stand-in defines its own: __noinline__ is a GNU attribute spelling there */
#define PT_NOINLINE __noinline__
#endif
static __device__ PT_NOINLINE pt_ew_offsets pt_ew_coords(pt_i64 i, int rank, bool small) {
  pt_i64 ${each((v) => `q${v} = 0`, ", ")};
${coordinates(inputs, "i", "  ")}
  const pt_ew_offsets r = {{${each((v) => `q${v}`, ", ")}}};
  return r;
}
`;
  // Sets name<v> to view v's offset of element i, from its coordinates.
  const at = (i: string, name: string, indent: string) =>
    [`const pt_ew_offsets c = pt_ew_coords(${i}, rank, small);`, ...inputs.map((v) => `${name}${v} = o${v} + c.q[${v - 1}];`)]
      .map((l) => indent + l).join("\n");
  // A thread reads the inputs of several elements before it computes any (the ew program's
  // loads-first order): about 16 registers of loaded values, like the reduce template's four
  // 16-byte vectors, in U vectors of E elements (or U * E positions) a step.
  const E = value.type === F32 || value.type === I32 ? 4 : 2;
  const loadRegs = loads.reduce((r, l) => r + (l.T === "double" || l.T === "pt_i64" ? 2 : 1), 0);
  const U = Math.max(1, Math.min(4, Math.floor(16 / Math.max(1, loadRegs) / E)));
  const usesIndex = body.some((l) => l.includes("@i"));
  // An input of its compute type's own dtype (the usual case) is read without the dtype
  // switch: a reduction over a few bytes an element is bound by instructions, not memory.
  const native = (l: { T: string; expr: string; view: number; ct: number }) =>
    `dt${l.view} == ${DT_OF[l.ct]} ? pt_raw_${SUFFIX[l.ct]}(vb${l.view}, @q${l.view}) : ${l.expr}`;
  return `${CUDA_EW.head(slots, { math: true, ints: true }, true)}${REDUCE_CORE}
/* Shape and strides for coordinates (sh_st[8v + d]: view v's), at file scope for pt_ew_coords. */
__shared__ pt_i64 sh_shape[PT_MAX_RANK], sh_st[${nviews * 8}];
${coords}
/* ewreduce [op, ddof, rank, shape x8, start, rows, rowlen, nviews, OUT VIEW, IN VIEW x
 * (nviews - 1), nconst, const x nconst]; ROW launch over the rows. Row r is E's elements
 * start + r * rowlen, ... (E: the ew program's values over the shape, of ${T}); its result
 * goes to OUT at offset + r * OUT's stride 0. The launch bound is the reduce template's. */
extern "C" __global__ void __launch_bounds__(PT_BLOCK, 3) pt_main(const pt_params p);
extern "C" __global__ void pt_main(const pt_params p) {
  __shared__ pt_acc sh[PT_BLOCK];
  const int op = ${op === undefined ? "int(PT_A(PT_EWREDUCE_OP))" : `${op} /* rendered for this op alone */`};
  const int rank = int(PT_A(PT_EWREDUCE_RANK));
${elementCount(EWREDUCE.shape, "numel")}
  const pt_i64 start = PT_A(PT_EWREDUCE_START), rows = PT_A(PT_EWREDUCE_ROWS), n = PT_A(PT_EWREDUCE_ROWLEN);
  const pt_view out = pt_view_at(p, PT_EWREDUCE_VIEWS);
${viewLocals(inputs, EWREDUCE.shape, EWREDUCE.views)}
${hoisted.map((h) => `  const ${h.T} ${h.name} = ${h.expr};\n`).join("")}${shareLayout(inputs, EWREDUCE.shape, EWREDUCE.views)}
  const bool small = numel <= 0x7fffffff;
  /* A row from element base that lies within the last dim (any row, for linear views) has
   * its element i at r<v> + (i - base) * s<v> in view v (affine): no coordinates. */
  pt_i64 base = 0${each((v) => `, r${v} = 0, s${v} = 0`, "")};
  bool affine = true;
  /* E's element i in two steps: load reads its inputs (the ew program's LOADs), value runs
   * the instructions after them up to the STORE. An integer error makes the value 0 (the
   * reduction runs on; the launch reports it). */
  struct pt_ew_in {
    pt_i64 i;
${place(loads.map((l) => `${l.T} ${l.name};`), "    ", "", "", () => "")}
  };
  const auto load = [&](pt_i64 i) -> pt_ew_in {
${
    ninputs === 0 ? "" : `    pt_i64 ${each((v) => `q${v}`, ", ")};
    if (affine) {
${each((v) => `      q${v} = r${v} + (i - base) * s${v};`)}
    } else {
${at("i", "q", "      ")}
    }
`
  }    pt_ew_in x;
    x.i = i;
${place(loads.map((l) => `x.${l.name} = ${native(l)};`), "    ", "", "i", (v) => `q${v}`)}
    return x;
  };
  const auto value = [&](const pt_ew_in &x) -> ${T} {
${usesIndex ? "    const pt_i64 i = x.i;\n" : ""}${
    place([...loads.map((l) => `const ${l.T} ${l.name} = x.${l.name};`), ...body, `return ${value.name};`], "    ", "", "i", () => "")
  }
  };
  const bool fl = ${value.type <= F64} || op == R_VAR || op == R_STD;
  const int kind = pt_kind_of(op, 1);
  const bool fast = ${value.type <= F64 ? "kind == K_SUM" : "false"}; /* see pt_fast of a pt_fn_row */
  const bool one = n <= PT_SHORT_ROW; /* a short row a thread (blocks.h's ROW work), else a row a block */
  const pt_i64 first = one ? pt_i64(blockIdx.x) * PT_BLOCK + threadIdx.x : pt_i64(blockIdx.x);
  const pt_i64 stride = one ? pt_i64(gridDim.x) * PT_BLOCK : pt_i64(gridDim.x);
  for (pt_i64 row = first; row < rows; row += stride) {
    base = start + row * n;
${
    ninputs === 0 ? "" : `    const pt_i64 last = rank > 0 ? sh_shape[rank - 1] : 1;
    affine = linear || n <= 1 || base % last + n <= last;
    if (affine) {
${at("base", "r", "      ")}
${each((v) => `      s${v} = linear || rank == 0 ? 1 : sh_st[${8 * v} + rank - 1];`)}
    }
`
  }    const pt_fn_row<${DT}, ${T}, pt_ew_in, decltype(load), decltype(value), ${U}> src = {load, value, base};
    pt_reduce_row(p, src, op, kind, fl, fast, n, out, out.off + row * out.st[0], sh, one);
  }
}
`;
}
