/**
 * Elementwise programs: blocks.h's bytecode rendered as one straight-line CUDA function
 * body per element. The source is made from the bytecode (the same words the CPU backend
 * interprets), so both backends run the same instruction list with the same types: a
 * register becomes a fresh local per instruction, LOAD/STORE convert through the view's
 * dtype (read from the block at run time, so one program serves every dtype), and each
 * op has the CPU interpreter's semantics (ew_ops.h): integer wrap, floor division and
 * Python modulo with an error on zero, NaN-propagating max/min, rint for round.
 */
import { preambleFor } from "./preamble.ts";
import { REDUCE_CORE } from "./reduce.ts";
import { DTYPES } from "../../base/dtype.ts";
import { decodeElementwise, type EwEmitter, F32, F64, I32, I64 } from "../decode.ts";
import { fmodPy, intHelpers, opsEmitter } from "../templates/ops.ts";
import { ewIo } from "../templates/ew_io.ts";

const MAX_ARGS = 240; // PT_CUDA_MAX_ARGS: the whole block must fit in pt_params.a
const CTYPE = ["float", "double", "int", "pt_i64"];
const SUFFIX = ["f32", "f64", "i32", "i64"];
const UTYPE = ["", "", "pt_u32", "pt_u64"];
const DT_OF = ["PT_F32", "PT_F64", "PT_I32", "PT_I64"]; // the dtype that holds a compute type's values unconverted

/** Helpers only elementwise programs use (ew_ops.h's per-type ops). */
const EW_HELPERS = String.raw`
${ewIo(true)}${intHelpers("pt_u32")}${fmodPy("float", "fmodf", (z, b) => `copysignf(${z}, ${b})`)}${
  fmodPy("double", "fmod", (z, b) => `copysign(${z}, ${b})`)
}
`;

/** The libm name for compute type t: expf for f32, exp for f64. */
function fn(name: string, t: number): string {
  return t === F32 ? `${name}f` : name;
}

function fail(why: string): never {
  throw new Error(`cuda renderer: ${why}`);
}

/** Bytes per element by dtype code (dtype.ts's table), and four elements of each size as one vector. */
const SIZE: number[] = [];
for (const d of Object.values(DTYPES)) SIZE[d.code] = d.size;
const VEC_TYPES = String.raw`
struct alignas(4) pt_v4_1 { pt_u8 v[4]; };
struct alignas(8) pt_v4_2 { pt_u16 v[4]; };
struct alignas(16) pt_v4_4 { pt_u32 v[4]; };
struct alignas(16) pt_v4_8 { pt_u64 v[4]; };
`;

/** Elements per thread per step of the contiguous path: their loads are all issued first. */
const UNROLL = 4;

/**
 * The bytecode as CUDA lines, for a block whose view 0 starts at slot `first` (the
 * constants follow the views and their count). Lines are written with placeholders, placed
 * per path by the caller: `@u` (the unit's suffix), `@i` (its element index) and `@q<v>`
 * (view v's element offset). An integer error is reported with pt_fail, then `onError` runs
 * (the kernel cannot go on computing that element). STORE is left to the caller: `value`
 * is the register it stores.
 */
function translate(words: Int32Array, first: number, onError: string) {
  const d = decodeElementwise(words, first, emitter(onError));
  const hoisted = d.hoisted.map((h) => `  const ${h.T} ${h.name} = ${h.expr};`);
  return { ...d, hoisted, value: { name: d.store.reg, type: d.store.ct } };
}

/** CUDA's spelling of the ops (templates/ops.ts); a failing integer op reports, then runs `onError`. */
function emitter(onError: string): EwEmitter {
  return opsEmitter({
    renderer: "cuda renderer",
    params: "pt_params",
    maxArgs: MAX_ARGS,
    ctype: CTYPE,
    utype: UTYPE,
    lit: (t, v) => `(${CTYPE[t]})${v}`,
    math: fn,
    isnan: (x) => `${x} != ${x}`,
    isinf: (x, t) => `${fn("fabs", t)}(${x}) == ${t === F32 ? "PT_INF_F" : "PT_INF"}`,
    isfinite: (x, t) => `${fn("fabs", t)}(${x}) < ${t === F32 ? "PT_INF_F" : "PT_INF"}`,
    nonzero: (x) => `${x} != 0`,
    iszero: (x) => `${x} == 0`,
    load: (ct, v) => `pt_ew_ld_${SUFFIX[ct]}(b${v}, dt${v}, @q${v})`,
    constant(ct, k) {
      const slot = `p.a[${k}]`;
      return ct === F32 ? `(float)${slot}` : ct === F64 ? slot : ct === I32 ? `pt_f2i32(${slot})` : `pt_f2i64(${slot})`;
    },
    index: (ct) => ct === I64 ? "@i" : ct === I32 ? "pt_wrap32(@i)" : `(${CTYPE[ct]})@i`,
    onError,
  });
}

/** Lines with translate()'s placeholders placed: `u` the unit's suffix, `i` its index, q(v) view v's offset. */
function place(lines: readonly string[], indent: string, u: string, i: string, q: (v: string) => string): string {
  return lines.map((l) => indent + l.replaceAll("@u", u).replaceAll("@i", i).replace(/@q(\d+)/g, (_, v) => q(v))).join("\n");
}

/**
 * Strided views' coordinates: thread 0 copies the shape (at slot `shapeSlot`) and each
 * view's strides (view v's VIEW at slot first + 11v) into shared memory, which keeps
 * registers free for the expression. The caller synchronises before offsets() reads them.
 */
function sharedLayout(views: readonly number[], shapeSlot: number, first: number): string {
  return `  if (threadIdx.x == 0) {
#pragma unroll
    for (int d = 0; d < PT_MAX_RANK; d++) {
      sh_shape[d] = d < rank ? PT_A(${shapeSlot} + d) : 1;
${views.map((v) => `      sh_st[${v}][d] = PT_A(${first + 3 + 11 * v} + d);`).join("\n")}
    }
  }`;
}

/**
 * Each view's buffer, dtype and offset as locals b<v>, dt<v>, o<v> (view v's VIEW at slot
 * first + 11v), and whether all of them are row-major contiguous over the shape at slot
 * shapeSlot (`linear`: element i of view v is then at o<v> + i, no coordinates needed).
 */
function viewLocals(views: readonly number[], shapeSlot: number, first: number): string {
  const at = (v: number, k: number) => first + k + 11 * v;
  return `${
    views.map((v) =>
      `  char *const b${v} = pt_buf(p, (int)p.a[${at(v, 0)}]);
  const int dt${v} = (int)p.a[${at(v, 1)}];
  const pt_i64 o${v} = PT_A(${at(v, 2)});`
    ).join("\n")
  }
  /* Views that are all row-major contiguous need no coordinates: element i is at o + i. */
  const bool linear = ${views.map((v) => `pt_ew_linear(p, ${shapeSlot}, ${at(v, 3)}, rank)`).join(" && ") || "true"};`;
}

/** The element offsets q<v> of row-major index i (under 2^31 elements, `small`, found in 32 bits). */
function offsets(views: readonly number[], i: string, indent: string): string {
  const each = (f: (v: number) => string) => views.map(f).join("\n");
  return `if (small) {
  pt_u32 r = (pt_u32)${i};
  for (int d = rank - 1; d >= 0; d--) {
    const pt_u32 e = (pt_u32)sh_shape[d], c = r % e;
    r /= e;
${each((v) => `    q${v} += (pt_i64)c * sh_st[${v}][d];`)}
  }
} else {
  pt_i64 r = ${i};
  for (int d = rank - 1; d >= 0; d--) {
    const pt_i64 c = r % sh_shape[d];
    r /= sh_shape[d];
${each((v) => `    q${v} += c * sh_st[${v}][d];`)}
  }
}`.split("\n").map((l) => indent + l).join("\n");
}

/** The pt_main of an elementwise program, from its bytecode. */
export function renderElementwise(words: Int32Array, linear?: readonly number[]): string {
  const { nviews, hoisted, loads, slots, value, body: lines } = translate(words, 10, "return;");
  const body = [...lines, `pt_ew_st_${SUFFIX[value.type]}(b0, dt0, @q0, ${value.name});`];
  const views = Array.from({ length: nviews }, (_, v) => v);
  const each = (f: (v: number) => string, sep = "\n") => views.map(f).join(sep);
  // The contiguous path: UNROLL elements a step, every unit's loads before any unit's stores
  // (the CPU also loads a whole block before storing it).
  const units = Array.from({ length: UNROLL }, (_, u) => u);
  const linearLoads = units.map((u) =>
    [
      `      const pt_i64 i${u} = i + ${u} * PT_STEP;`,
      ...loads.map((l) => `      ${l.T} ${l.name} = 0;\n      if (i${u} < n) ${l.name} = ${l.expr};`),
    ].join("\n").replaceAll("@u", `_${u}`).replace(/@q(\d+)/g, (_, v) => `o${v} + i${u}`)
  );
  const linearBody = units.map((u) =>
    `      if (i${u} < n) {\n${place(body, "        ", `_${u}`, `i${u}`, (v) => `o${v} + i${u}`)}\n      }`
  );
  const generalLoads = loads.map((l) => `${l.T} ${l.name} = ${l.expr};`);
  const loop = (start = "PT_FIRST") =>
    `    for (pt_i64 i = ${start}; i < n; i += ${UNROLL} * PT_STEP) {
${linearLoads.join("\n")}
${linearBody.join("\n")}
    }`;
  if (linear) {
    if (linear.length !== nviews || linear.some((c) => !(c >= 0 && c < SIZE.length))) fail(`bad linear layout ${linear}`);
    // Four consecutive elements of each view move as one vector (through a local array that
    // the ld/st helpers read and write with constant indices) when every offset allows it.
    const vec = (v: number) => `pt_v4_${SIZE[linear[v]]}`;
    const lane = (l: string, u: number) => l.replace(/\(b(\d+), dt(\d+), @q\d+/g, `((char *)&V$1, dt$2, ${u}`);
    const vecUnits = units.map((u) =>
      [...loads.map((l) => `${l.T} ${l.name} = ${lane(l.expr, u)};`), ...body.map((l) => lane(l, u))].map((l) =>
        "      " + l.replaceAll("@u", `_${u}`).replaceAll("@i", `(4 * j + ${u})`)
      ).join("\n")
    );
    return `${preambleFor(slots)}${EW_HELPERS}${VEC_TYPES}
/* ew, linear layout: every view is contiguous over one dim (rank <= 1 after collapsing, unit
 * strides) and view v is buffer v, with the dtypes fixed when the program was made, so
 * loads and stores need no coordinates, buffer search or dtype switch. Same block as ew. */
extern "C" __global__ void pt_main(const pt_params p) {
  const pt_i64 n = PT_A(1);
${
      each((v) =>
        `  char *const b${v} = (char *)p.buf[${v}];\n  const int dt${v} = ${linear[v]};\n  const pt_i64 o${v} = PT_A(${12 + 11 * v});`
      )
    }
${hoisted.join("\n")}
  if (n <= PT_STEP) { /* the grid covers n: one element per thread, no vectors or unrolling */
    const pt_i64 i = PT_FIRST;
    if (i < n) {
${place(generalLoads, "      ", "", "i", (v) => `o${v} + i`)}
${place(body, "      ", "", "i", (v) => `o${v} + i`)}
    }
    return;
  }
  const pt_i64 nv = ${each((v) => `(o${v} & 3) == 0`, " && ")} ? n / 4 : 0;
  for (pt_i64 j = PT_FIRST; j < nv; j += PT_STEP) {
${views.slice(1).map((v) => `    const ${vec(v)} V${v} = *(const ${vec(v)} *)(b${v} + (o${v} + 4 * j) * ${SIZE[linear[v]]});`).join("\n")}
    ${vec(0)} V0;
    {
${vecUnits.join("\n    }\n    {\n")}
    }
    *(${vec(0)} *)(b0 + (o0 + 4 * j) * ${SIZE[linear[0]]}) = V0;
  }
  /* the elements after the last whole vector (all of them when an offset is unaligned) */
  if (nv * 4 < n) {
${loop("nv * 4 + PT_FIRST")}
  }
}
`;
  }
  return `${preambleFor(slots)}${EW_HELPERS}
/* ew [rank, shape x8, nviews, VIEW x nviews (view 0 = output), nconst, const x nconst];
 * ELEMENT launch over the output's elements. */
extern "C" __global__ void pt_main(const pt_params p) {
  __shared__ pt_i64 sh_shape[PT_MAX_RANK], sh_st[${nviews}][PT_MAX_RANK];
  const int rank = (int)p.a[0];
  pt_i64 n = 1;
#pragma unroll
  for (int d = 0; d < PT_MAX_RANK; d++) n *= d < rank ? PT_A(1 + d) : 1;
${viewLocals(views, 1, 10)}
${hoisted.join("\n")}
  if (linear) {
${loop()}
    return;
  }
  /* Strided views: shape and strides are kept in shared memory (registers stay free for
   * the expression); under 2^31 elements the coordinates are found in 32 bits. */
${sharedLayout(views, 1, 10)}
  __syncthreads();
  const bool small = n <= 0x7fffffff;
  for (pt_i64 i = PT_FIRST; i < n; i += PT_STEP) {
    pt_i64 ${each((v) => `q${v} = o${v}`, ", ")};
${offsets(views, "i", "    ")}
${place(generalLoads, "    ", "", "i", (v) => `q${v}`)}
${place(body, "    ", "", "i", (v) => `q${v}`)}
  }
}
`;
}

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
  const { ninputs, nviews, hoisted, loads, body, slots, value } = translate(words, 15, "return 0;");
  const inputs = Array.from({ length: ninputs }, (_, v) => v + 1);
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
${offsets(inputs, "i", "  ")}
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
    `dt${l.view} == ${DT_OF[l.ct]} ? ((const ${l.T} *)b${l.view})[@q${l.view}] : ${l.expr}`;
  return `${preambleFor(slots)}${EW_HELPERS}${REDUCE_CORE}
/* Shape and strides for coordinates (sh_st[v]: view v's), at file scope for pt_ew_coords. */
__shared__ pt_i64 sh_shape[PT_MAX_RANK], sh_st[${nviews}][PT_MAX_RANK];
${coords}
/* ewreduce [op, ddof, rank, shape x8, start, rows, rowlen, nviews, OUT VIEW, IN VIEW x
 * (nviews - 1), nconst, const x nconst]; ROW launch over the rows. Row r is E's elements
 * start + r * rowlen, ... (E: the ew program's values over the shape, of ${T}); its result
 * goes to OUT at offset + r * OUT's stride 0. The launch bound is the reduce template's. */
extern "C" __global__ void __launch_bounds__(PT_BLOCK, 3) pt_main(const pt_params p);
extern "C" __global__ void pt_main(const pt_params p) {
  __shared__ pt_acc sh[PT_BLOCK];
  const int op = ${op === undefined ? "(int)p.a[0]" : `${op} /* rendered for this op alone */`};
  const int rank = (int)p.a[2];
  pt_i64 numel = 1;
#pragma unroll
  for (int d = 0; d < PT_MAX_RANK; d++) numel *= d < rank ? PT_A(3 + d) : 1;
  const pt_i64 start = PT_A(11), rows = PT_A(12), n = PT_A(13);
  const pt_view out = pt_view_at(p, 15);
${viewLocals(inputs, 3, 15)}
${hoisted.map((l) => `${l}\n`).join("")}${sharedLayout(inputs, 3, 15)}
  __syncthreads();
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
  for (pt_i64 row = blockIdx.x; row < rows; row += gridDim.x) {
    base = start + row * n;
${
    ninputs === 0 ? "" : `    const pt_i64 last = rank > 0 ? sh_shape[rank - 1] : 1;
    affine = linear || n <= 1 || base % last + n <= last;
    if (affine) {
${at("base", "r", "      ")}
${each((v) => `      s${v} = linear || rank == 0 ? 1 : sh_st[${v}][rank - 1];`)}
    }
`
  }    const pt_fn_row<${DT}, ${T}, pt_ew_in, decltype(load), decltype(value), ${U}> src = {load, value, base};
    pt_reduce_row(p, src, op, kind, fl, fast, n, out, out.off + row * out.st[0], sh);
  }
}
`;
}
