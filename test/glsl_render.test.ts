/**
 * The GLSL renderer's output, checked without a GPU: every op and template renders, keys
 * follow structure, and the text carries params.h's record and error codes. Where
 * glslangValidator exists, every program is also compiled to SPIR-V for Vulkan 1.2 (with
 * and without the driver's PT_VK_DENORM_PRESERVE_F32) and, where spirv-val exists,
 * validated; running the programs is the whole suite's job under PT_DEVICE=vulkan.
 * @host-only: nothing here runs on PT_DEVICE, so the device passes of scripts/test.sh skip this file.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { kindOf } from "../src/kernels/launch.ts";
import { binary, cast, COMPARES, COMPUTE, decode, KINDS, load, mixed, NAMES, PREDICATES, unary } from "./render_common.ts";
import { assert, test, testUnless } from "./harness.ts";
import { BINARY, binaryDefined, type BinaryOp, type Expr, FLOAT_ONLY_UNARY, UNARY, type UnaryOp } from "../src/kernels/ir.ts";
import { GLSL_TEMPLATES, glslElementwiseSource, glslRenderer, glslTemplateSource } from "../src/kernels/glsl.ts";
import type { DType } from "../src/base/dtype.ts";

function unarySource(op: UnaryOp, dt: DType): string {
  return glslElementwiseSource(unary(op, load(0, dt), PREDICATES.has(op) ? "bool" : dt), 1);
}
function binarySource(op: BinaryOp, dt: DType): string {
  return glslElementwiseSource(binary(op, load(0, dt), load(1, dt), COMPARES.has(op) ? "bool" : dt), 2);
}

test("glsl: every unary op renders for each compute type it has", () => {
  for (const op of Object.keys(UNARY) as UnaryOp[]) {
    for (const dt of COMPUTE) {
      if (dt.startsWith("int") && FLOAT_ONLY_UNARY.has(op)) {
        assert.throws(() => unarySource(op, dt), /needs a float ctype/, `${op} on ${dt}`);
        continue;
      }
      const src = unarySource(op, dt);
      assert.match(src, /^#version 460\n/, `${op} ${dt}`);
      assert.equal(src.match(/\bvoid main\(\)/g)?.length, 1, `${op} ${dt} has one main`);
      assert.match(src, /pt_ew_st_\w+\(vb0, dt0, q0, t1\);/, `${op} ${dt} stores`);
    }
  }
  // transcendentals go through math.ts's double versions, never GLSL's f32 built-ins
  assert.match(unarySource("exp", "float32"), /const float t1 = pt_expf\(t0\);/);
  assert.match(unarySource("sin", "float64"), /const double t1 = pt_sin\(t0\);/);
  assert.match(unarySource("round", "float32"), /roundEven\(t0\)/, "round is half to even");
  assert.doesNotMatch(unarySource("tanh", "float32"), /= tanh\(/);
});

test("glsl: every binary op renders for every compute type", () => {
  for (const op of Object.keys(BINARY) as BinaryOp[]) {
    for (const dt of COMPUTE) {
      if (!binaryDefined(op, dt)) {
        assert.throws(() => binarySource(op, dt), /needs an? (float|integer) ctype/, `${op} on ${dt}`);
        continue;
      }
      const src = binarySource(op, dt);
      assert.match(src, /pt_ew_ld_\w+\(vb2, dt2, q2\)/, `${op} ${dt} loads input 1`);
      if (dt.startsWith("int") && (op === "div" || op === "mod" || op === "fmod" || op === "floorDivide")) {
        assert.match(src, /PT_KERR_INT_DIV/);
      }
      if (dt.startsWith("int") && op === "pow") assert.doesNotMatch(src, /pt_fail\(PT_KERR/, "integer pow never fails");
    }
  }
  assert.match(binarySource("add", "float32"), /pt_add\(t0, t1\)/, "float add goes through the precise helper");
  assert.match(binarySource("add", "int32"), /int\(pt_u32\(t0\) \+ pt_u32\(t1\)\)/, "integer add wraps through uint");
  assert.match(binarySource("maximum", "float64"), /isnan\(t0\) \|\| t0 > t1 \? t0 : t1/, "max propagates NaN");
  assert.match(binarySource("pow", "float32"), /pt_powf\(t0, t1\)/);
});

test("glsl: arithmetic that must round once is precise; f32 division goes through double", () => {
  const src = binarySource("div", "float32");
  assert.match(src, /float pt_add\(float a, float b\) \{ precise float r = a \+ b; return r; \}/);
  assert.match(src, /float pt_div\(float a, float b\) \{ precise double r = double\(a\) \/ double\(b\); return float\(r\); \}/);
  assert.match(src, /spirv_execution_mode\(extensions = \["SPV_KHR_float_controls"\], capabilities = \[4464\], 4459, 32\)/);
  assert.match(src, /#if defined\(PT_VK_DENORM_PRESERVE_F32\) && PT_VK_DENORM_PRESERVE_F32/);
});

test("glsl: one structure gives one source and key; other structures other keys", () => {
  const a = glslRenderer.elementwise(binary("add", load(0, "float32"), load(1, "float32"), "float32"), 2);
  const b = glslRenderer.elementwise(binary("add", load(0, "float32"), load(1, "float32"), "float32"), 2);
  assert.equal(a.key, b.key);
  assert.deepEqual(a, b, "the same program again (renderers cache nothing: the device does)");
  assert.equal(a.kind, "ew");
  assert.ok(a.key.startsWith("glsl:"));
  assert.equal(a.source[a.source.length - 1], 0, "sources end with a NUL byte");
  const keys = new Set([
    a.key,
    glslRenderer.elementwise(binary("sub", load(0, "float32"), load(1, "float32"), "float32"), 2).key,
    glslRenderer.elementwise(binary("add", load(0, "float64"), load(1, "float64"), "float64"), 2).key,
    glslRenderer.elementwise(binary("add", load(1, "float32"), load(0, "float32"), "float32"), 2).key,
    glslRenderer.elementwise(binary("add", load(0, "float32"), load(1, "float32"), "float32"), 3).key,
    glslRenderer.elementwise(unary("neg", load(0, "float32"), "float32"), 1).key,
  ]);
  assert.equal(keys.size, 6);
  assert.equal(
    glslElementwiseSource(unary("abs", load(0, "float16"), "float32"), 1),
    glslElementwiseSource(unary("abs", load(0, "float32"), "float32"), 1),
    "the view dtypes are read at run time",
  );
});

test("glsl: sources follow params.h: the record, the error codes, the group size", () => {
  const header = readFileSync(new URL("../native/src/backends/vulkan/params.h", import.meta.url), "utf8");
  const record = header.match(/uint64_t buf\[16\]; uint64_t err; int nbuf; int nargs; double a\[240\];/);
  assert.ok(record, "params.h spells out the GLSL record");
  const codes = [...header.matchAll(/#define (PT_KERR_\w+) (\d+)/g)];
  assert.ok(codes.length >= 3, "params.h defines the error codes");
  assert.match(header, /#define PT_VK_GROUP 256/);
  const sources = [glslElementwiseSource(mixed(), 2), ewReduceSource(mixed(), 2), ...KINDS.map(glslTemplateSource)];
  for (const src of sources) {
    assert.ok(src.includes(record[0]), "record text");
    for (const [, name, value] of codes) assert.ok(src.includes(`#define ${name} ${value}u`), name);
    assert.match(src, /layout\(local_size_x = 256, local_size_y = 1, local_size_z = 1\) in;/);
    assert.match(src, /layout\(push_constant\) uniform PtPush \{ uint64_t params; \} pt_push;/);
    assert.ok(!/#include/.test(src), "no includes");
  }
});

test("glsl: every template kind of blocks.h renders a main, once", () => {
  assert.deepEqual(Object.keys(GLSL_TEMPLATES).sort(), [...NAMES].sort());
  for (const kind of NAMES) {
    const prog = glslRenderer.template(kind);
    assert.equal(prog.kind, kindOf(kind));
    assert.equal(prog.key, `glsl:t:${kind}`);
    const src = decode(prog.source);
    assert.equal(src.match(/\bvoid main\(\)/g)?.length, 1, kind);
    assert.equal(prog.source[prog.source.length - 1], 0, `${kind} ends with NUL`);
    assert.deepEqual(glslRenderer.template(kind), prog, "the same program again (renderers cache nothing: the device does)");
  }
  assert.match(glslTemplateSource("matmul"), /const int64_t row0 = ty \* TM, col0 = tx \* TM;/, "matmul tiles by the dispatch's y and x");
  assert.match(glslTemplateSource("sort"), /pt_put_i64_coherent\(idx\.b, xo \+ r \* ia, r\)/, "long rows sort in place in the indices");
  assert.match(glslTemplateSource("philox"), /pt_mulhi32\(PHILOX_M0, w0\)/);
  assert.match(glslTemplateSource("philox"), /umulExtended\(a, b, hi, lo\)/, "the high word by umulExtended");
  assert.throws(() => glslRenderer.template("fft"), /no template "fft"/);
});

test("glsl: matmul strides over tiles past 65535 groups a dimension; work one invocation does in order is unrolled", () => {
  const mm = glslTemplateSource("matmul");
  assert.match(mm, /for \(int64_t ty = int64_t\(gl_WorkGroupID\.y\); ty < tilesM; ty \+= int64_t\(gl_NumWorkGroups\.y\)\)/);
  assert.match(mm, /for \(int64_t tx = int64_t\(gl_WorkGroupID\.x\); tx < tilesN; tx \+= int64_t\(gl_NumWorkGroups\.x\)\)/);
  const driver = readFileSync(new URL("../native/src/backends/vulkan/program.c", import.meta.url), "utf8");
  assert.match(driver, /pt_grid_tiles\(mm\.M, mm\.N, mm\.batch, mm\.M > 64 && mm\.N > 64 \? 128 : 64, g\);/, "the driver plans tiles");
  const grid = readFileSync(new URL("../native/src/core/gpu.c", import.meta.url), "utf8");
  assert.match(grid, /g\[0\] = cap\(\(n \+ tile - 1\) \/ tile\);/, "core caps the tile columns");
  assert.match(grid, /g\[1\] = cap\(\(m \+ tile - 1\) \/ tile\);/, "and the tile rows");
  assert.match(grid, /static unsigned cap\(int64_t x\) \{ return \(unsigned\)\(x < 65535 \? x : 65535\); \}/, "at 65535");
  // llvmpipe ends an invocation's loops after 65535 passes in all (preamble.ts)
  assert.match(glslTemplateSource("scan"), /PT_UNROLL\s+for \(int u = 0; u < PT_SCAN_STEPS; u\+\+\)/, "scan's chain");
  assert.match(glslTemplateSource("sort"), /#define PT_SORT_UNROLL 8\n/, "sort's in-place steps");
  assert.match(glslTemplateSource("sort"), /PT_UNROLL for \(int u = 0; u < PT_SORT_UNROLL; u\+\+\)/, "8 comparators a loop pass");
  for (const kind of ["scatter", "index_put"]) {
    assert.match(glslTemplateSource(kind), /if \(tid == 0\) pt_write_chunk\(/, `${kind} writes 256 at a time`);
    assert.match(glslTemplateSource(kind), /PT_UNROLL\n +for \(int u = 0; u < PT_WRITE_UNROLL; u\+\+\)/, `${kind}'s writes a loop pass`);
  }
  assert.doesNotMatch(glslTemplateSource("reduce"), /do \{/, "no loop in the f16 conversion every load may call");
});

test("glsl: an elementwise block that cannot fit PtParams is refused when rendered", () => {
  let e: Expr = load(0, "float32");
  for (let i = 1; i < 19; i++) e = binary("add", e, load(i, "float32"), "float32");
  assert.ok(glslElementwiseSource(e, 19).includes("void main()"), "19 inputs fit (20 views of 11 slots)");
  let f: Expr = load(0, "float32");
  for (let i = 1; i < 20; i++) f = binary("add", f, load(i, "float32"), "float32");
  assert.throws(() => glslElementwiseSource(f, 20), /argument slots/);
  const c = (index: number): Expr => ({ k: "const", index, dtype: "float32" });
  assert.throws(() => glslElementwiseSource(binary("add", load(0, "float32"), c(300), "float32"), 1), /argument slots/);
});

// ---- the linear layout: view v is buffer v, contiguous, with dtypes fixed in the program ----

const CODE: Record<DType, number> = {
  float32: 0,
  float16: 1,
  bfloat16: 2,
  float64: 3,
  int32: 4,
  int64: 5,
  uint8: 6,
  bool: 7,
  int8: 8,
  int16: 9,
};

/** Linear-layout programs over several dtype mixes: [name, expr, view dtypes (output first)]. */
function linearCases(): [string, Expr, DType[]][] {
  const c0: Expr = { k: "const", index: 0, dtype: "float32" };
  const idx32: Expr = { k: "index", dtype: "int32" };
  const f16ToU8 = cast(
    binary("add", binary("mul", cast(load(0, "float16"), "float32"), c0, "float32"), cast(idx32, "float32"), "float32"),
    "uint8",
  );
  const i64 = binary(
    "add",
    binary("div", load(0, "int64"), cast(load(1, "int32"), "int64"), "int64"),
    { k: "index", dtype: "int64" },
    "int64",
  );
  const bool = binary(
    "logicalXor",
    unary("nonzero", load(0, "bool"), "bool"),
    binary("gt", load(1, "float64"), load(1, "float64"), "bool"),
    "bool",
  );
  return [
    ["f16_to_u8", f16ToU8, ["uint8", "float16"]],
    ["i64_div_index", i64, ["int64", "int64", "int32"]],
    ["i64_div_index_to_f64", cast(i64, "float64"), ["float64", "int64", "int32"]],
    ["bool_xor", bool, ["bool", "bool", "float64"]],
    ["bf16_exp", cast(unary("exp", cast(load(0, "bfloat16"), "float32"), "float32"), "bfloat16"), ["bfloat16", "bfloat16"]],
    ["mixed", mixed(), ["uint8", "float16", "int64"]],
    ["index_only", cast({ k: "index", dtype: "float64" }, "float32"), ["float32"]],
    ["i8_times_i16_to_i8", cast(binary("mul", cast(load(0, "int8"), "int32"), cast(load(1, "int16"), "int32"), "int32"), "int8"), [
      "int8",
      "int8",
      "int16",
    ]],
    ["f32_to_i16", cast(load(0, "float32"), "int16"), ["int16", "float32"]],
  ];
}

function linearSource(expr: Expr, dtypes: DType[]): string {
  return decode(glslRenderer.elementwiseLinear!(expr, dtypes.length - 1, dtypes.map((d) => CODE[d])).source).replace(/\0$/, "");
}

test("glsl: linear-layout programs render for several dtype mixes, with the dtypes fixed and no coordinates", () => {
  assert.ok(glslRenderer.elementwiseLinear, "the glsl renderer specializes the linear layout");
  for (const [name, expr, dtypes] of linearCases()) {
    const src = linearSource(expr, dtypes);
    assert.match(src, /^#version 460\n/, name);
    assert.equal(src.match(/\bvoid main\(\)/g)?.length, 1, `${name} has one main`);
    assert.ok(src.includes(`dtypes [${dtypes.map((d) => CODE[d]).join(", ")}] fixed`), `${name} names its dtypes`);
    assert.match(src, /const pt_i64 n = PT_A\(PT_EW_SHAPE\);/, `${name} reads n from shape[0]`);
    assert.match(src, /const uint64_t a0 = PT_P\.buf\[0\] \+ uint64_t\(PT_A\(12\)\) \* \d+ul;/, `${name}: view 0 is buffer 0`);
    for (
      const absent of [/pt_ew_ld_|pt_ew_st_/, /\bdt\d\b/, /pt_ew_linear|sh_st|gl_LocalInvocationID\.x == 0u/, /PT_P\.a\[0\]/, /switch \(/]
    ) {
      assert.doesNotMatch(src.slice(src.indexOf("void main()")), absent, `${name}: no run-time dtype, layout or coordinates`);
    }
    assert.doesNotMatch(src, /float pt_ew_ld_f32/, `${name} leaves out the general program's helpers`);
    // four elements a step as one vector when every view is aligned, then the rest one by one
    assert.match(src, /const pt_i64 nv = aligned \? n \/ pt_i64\(4\) : pt_i64\(0\);/, name);
    assert.match(src, /for \(pt_i64 i = nv \* pt_i64\(4\) \+ PT_FIRST; i < n; i \+= pt_i64\(4\) \* PT_STEP\)/, name);
  }
  const [, f16ToU8, f16Dtypes] = linearCases()[0];
  const f16 = linearSource(f16ToU8, f16Dtypes);
  assert.match(f16, /const uvec4 V1 = uvec4\(PtV4U16\(a1 \+ uint64_t\(j\) \* 8ul\)\.v\);/, "four f16 in one 8-byte load");
  assert.match(f16, /float t0_2 = pt_f16_to_f32\(V1\.z\);/, "lane 2 converts f16 at compile time");
  assert.match(f16, /PtV4U8\(a0 \+ uint64_t\(j\) \* 4ul\)\.v = u8vec4\(V0\);/, "four u8 in one 4-byte store");
  assert.match(f16, /const bool aligned = \(a0 & pt_u64\(3\)\) == pt_u64\(0\) && \(a1 & pt_u64\(7\)\) == pt_u64\(0\);/);
  assert.match(f16, /const int t3_1 = int\(\(pt_i64\(4\) \* j \+ pt_i64\(1\)\)\);/, "INDEX is the element's index in the vector path");
  assert.match(f16, /const int t3_0 = int\(i0\);/, "and in the scalar path");
  assert.match(f16, /pt_put_u8\(a0, i3, \(pt_u32\(pt_i64\(t6_3\)\) & pt_u32\(255\)\)\);/, "u8 stores wrap as pt_st_i64 does");
  const i64 = linearSource(linearCases()[1][1], linearCases()[1][2]);
  assert.match(i64, /const i64vec4 V1 = PtV4I64\(a1 \+ uint64_t\(j\) \* 32ul\)\.v;/);
  assert.match(i64, /const ivec4 V2 = PtV4I32\(a2 \+ uint64_t\(j\) \* 16ul\)\.v;/);
  assert.match(i64, /if \(t\d_0 == pt_i64\(0\)\) \{ PT_FAIL\(PT_KERR_INT_DIV, \(pt_i64\(4\) \* j \+ pt_i64\(0\)\), 0, 0\); return; \}/);
  assert.match(i64, /pt_i64 pt_idiv\(pt_i64 a, pt_i64 d\)/, "integer division brings its helpers");
  assert.doesNotMatch(linearSource(linearCases()[0][1], linearCases()[0][2]), /pt_idiv/, "others leave them out");
  const bool = linearSource(linearCases()[3][1], linearCases()[3][2]);
  assert.match(bool, /int t0_0 = \(V1\.x != pt_u32\(0\) \? int\(1\) : int\(0\)\);/, "a bool loads as nonzero");
  assert.match(bool, /double t\d_1 = V2\.y;/, "an f64 loads as is");
  assert.match(bool, /V0\.w = \(pt_i64\(t\d_3\) != pt_i64\(0\) \? pt_u32\(1\) : pt_u32\(0\)\);/, "a bool stores as nonzero");
  const index = linearSource(linearCases()[6][1], ["float32"]);
  assert.doesNotMatch(index, /const \w+ V\d = /, "a program without inputs loads no vector");
  assert.match(index, /PtV4F32\(a0 \+ uint64_t\(j\) \* 16ul\)\.v = V0;/);
});

test("glsl: linear-layout keys differ from the general key and between dtype lists; one render per key", () => {
  const expr = binary("add", load(0, "float32"), load(1, "float32"), "float32");
  const general = glslRenderer.elementwise(expr, 2);
  const lin = glslRenderer.elementwiseLinear!(expr, 2, [0, 0, 0]);
  assert.equal(lin.kind, "ew", "the same kind and block as the general program");
  assert.ok(lin.key.startsWith("glsl:L0.0.0:"), lin.key);
  assert.equal(lin.key.slice("glsl:L0.0.0".length), general.key.slice("glsl".length), "the same bytecode after the dtypes");
  assert.deepEqual(
    glslRenderer.elementwiseLinear!(expr, 2, [0, 0, 0]),
    lin,
    "the same program again (renderers cache nothing: the device does)",
  );
  assert.equal(lin.source[lin.source.length - 1], 0, "ends with a NUL byte");
  const keys = new Set([general.key, lin.key]);
  for (const dtypes of [[1, 0, 0], [0, 1, 0], [0, 0, 1], [2, 2, 2], [7, 6, 6], [5, 3, 4]]) {
    keys.add(glslRenderer.elementwiseLinear!(expr, 2, dtypes).key);
  }
  assert.equal(keys.size, 8, "one key per dtype list");
  assert.notEqual(linearSource(expr, ["float16", "float32", "float32"]), linearSource(expr, ["float32", "float32", "float32"]));
  assert.equal(
    glslElementwiseSource(expr, 2),
    decode(general.source).replace(/\0$/, ""),
    "the general program is the one elementwise() gives",
  );
  assert.throws(() => glslRenderer.elementwiseLinear!(expr, 2, [0, 0]), /bad linear layout/);
  assert.throws(() => glslRenderer.elementwiseLinear!(expr, 2, [0, 0, 10]), /bad linear layout/);
});

// ---- ewreduce: reduce's body over an expression's values, from the same bytecode ----

function ewReduceSource(expr: Expr, ninputs: number): string {
  return decode(glslRenderer.elementwiseReduce!(expr, ninputs, 0).source).replace(/\0$/, "");
}

/** ewreduce programs: one per compute type of the value, and the integer ops that can fail. */
function ewReduceCases(): [string, Expr, number][] {
  const c0: Expr = { k: "const", index: 0, dtype: "float32" };
  return [
    ["f32", binary("add", binary("mul", load(0, "float32"), c0, "float32"), load(1, "float32"), "float32"), 2],
    ["f64", unary("exp", load(0, "float64"), "float64"), 1],
    ["i64_div", binary("div", load(0, "int64"), cast(load(1, "int32"), "int64"), "int64"), 2],
    ["bool", binary("gt", load(0, "float16"), { k: "index", dtype: "float32" }, "bool"), 1],
    ["mixed", mixed(), 2],
  ];
}

test("glsl: ewreduce programs run reduce's body over the expression's values", () => {
  assert.ok(glslRenderer.elementwiseReduce, "the glsl renderer fuses reductions");
  const expr = ewReduceCases()[0][1];
  const prog = glslRenderer.elementwiseReduce!(expr, 2, 0);
  assert.equal(prog.kind, "ewreduce");
  assert.ok(prog.key.startsWith("glsl:R:"), prog.key);
  assert.equal(prog.key.slice("glsl:R".length), glslRenderer.elementwise(expr, 2).key.slice("glsl".length), "keyed by the bytecode");
  assert.deepEqual(glslRenderer.elementwiseReduce!(expr, 2, 0), prog, "the same program again (renderers cache nothing: the device does)");
  assert.equal(prog.source[prog.source.length - 1], 0, "ends with a NUL byte");
  const reduce = glslTemplateSource("reduce");
  const body = (src: string) => src.slice(src.indexOf("/* The fixed tree"), src.lastIndexOf("/* reduce [") + 1);
  for (const [name, e, n] of ewReduceCases()) {
    const src = ewReduceSource(e, n);
    assert.match(src, /^#version 460\n/, name);
    assert.equal(src.match(/\bvoid main\(\)/g)?.length, 1, `${name} has one main`);
    assert.ok(src.includes(body(reduce).slice(0, -1)), `${name}: reduce's passes, word for word`);
    assert.match(src, /void pt_ew_value\(int64_t i, out \w+ value\)/, name);
    assert.doesNotMatch(src, /pt_ew_st_\w+\(vb0/, `${name} stores no element of the expression`);
    assert.match(
      src,
      /const int64_t onum = PT_A\(PT_EWREDUCE_ROWS\), n = PT_A\(PT_EWREDUCE_ROWLEN\);/,
      `${name} reads rows and row length`,
    );
    assert.match(src, /vin\.off = PT_A\(PT_EWREDUCE_START\);/, `${name} starts at element start`);
    assert.match(src, /const pt_view vout = pt_view_at\(PT_EWREDUCE_VIEWS\);/, `${name}: OUT is view 0`);
  }
  const f32 = ewReduceSource(expr, 2);
  assert.match(f32, /vb1 = PT_BUF\(26\);/, "input 0 is view 1, after OUT");
  assert.match(f32, /vb2 = PT_BUF\(37\);/);
  assert.match(f32, /t1 = float\(PT_P\.a\[49\]\);/, "const 0 follows nconst at 15 + 11 * nviews");
  assert.match(f32, /vin\.dt = PT_F32;/);
  assert.match(f32, /return uint64_t\(floatBitsToUint\(v\)\);/, "an f32 value is reduced as its bits");
  assert.match(ewReduceSource(ewReduceCases()[1][1], 1), /vin\.dt = PT_F64;/);
  assert.match(ewReduceSource(ewReduceCases()[3][1], 1), /vin\.dt = PT_I32;/, "a comparison is reduced as i32 0/1");
  const div = ewReduceSource(ewReduceCases()[2][1], 2);
  assert.match(div, /PT_FAIL\(PT_KERR_INT_DIV, i, 0, 0\); return; \}/, "a division by zero reports its element");
  assert.match(div, /vin\.dt = PT_I64;/);
  assert.match(div, /vb2 = PT_BUF\(37\);/);
  let wide: Expr = load(0, "float32");
  for (let i = 1; i < 19; i++) wide = binary("add", wide, load(i, "float32"), "float32");
  const c4: Expr = { k: "const", index: 4, dtype: "float32" };
  assert.ok(glslElementwiseSource(binary("add", wide, c4, "float32"), 19).includes("void main()"), "ew fits const 4 after 20 views");
  assert.throws(() => ewReduceSource(binary("add", wide, c4, "float32"), 19), /argument slots/, "ewreduce's block has 5 slots more");
});

function has(tool: string): boolean {
  try {
    return spawnSync(tool, ["--version"], { encoding: "utf8" }).status === 0;
  } catch {
    return false;
  }
}

testUnless(
  has("glslangValidator") ? null : "glslangValidator not found, so no SPIR-V compile (the driver's shaderc compiles these)",
  "glsl: every program compiles to valid SPIR-V for Vulkan 1.2 (glslangValidator, spirv-val)",
  () => {
    const validate = has("spirv-val");
    if (!validate) console.log("glsl_render: spirv-val not found; compiling without validating the SPIR-V");
    const programs: [string, string][] = KINDS.map((k) => [k, glslTemplateSource(k)]);
    programs.push(["ew_mixed", glslElementwiseSource(mixed(), 2)]);
    for (const op of Object.keys(UNARY) as UnaryOp[]) {
      for (const dt of COMPUTE) {
        if (!(dt.startsWith("int") && FLOAT_ONLY_UNARY.has(op))) programs.push([`ew_${op}_${dt}`, unarySource(op, dt)]);
      }
    }
    for (const op of Object.keys(BINARY) as BinaryOp[]) {
      for (const dt of COMPUTE.filter((d) => binaryDefined(op, d))) programs.push([`ew_${op}_${dt}`, binarySource(op, dt)]);
    }
    for (const [name, expr, n] of ewReduceCases()) programs.push([`ewreduce_${name}`, ewReduceSource(expr, n)]);
    compileAll(programs, validate);
  },
);

testUnless(
  has("glslangValidator") ? null : "glslangValidator not found, so no SPIR-V compile of the linear-layout programs",
  "glsl: linear-layout programs compile to valid SPIR-V for every dtype and compute type (glslangValidator, spirv-val)",
  () => {
    const programs: [string, string][] = linearCases().map(([name, expr, dtypes]) => [`ew_linear_${name}`, linearSource(expr, dtypes)]);
    // every dtype as an input read in each compute type and as the output stored from one
    for (const d of Object.keys(CODE) as DType[]) {
      for (const ct of COMPUTE) {
        const sum = (a: Expr, b: Expr) => binary("add", a, b, ct);
        const reads = COMPUTE.map((from) => cast(load(0, from), ct)); // input 0 (dtype d) loaded as each compute type
        programs.push([`ew_linear_${d}_${ct}`, linearSource(cast(sum(sum(reads[0], reads[1]), sum(reads[2], reads[3])), d), [d, d])]);
      }
    }
    compileAll(programs, has("spirv-val"));
  },
);

/** Compiles each program with glslangValidator for Vulkan 1.2 and, when asked, validates it with spirv-val. */
function compileAll(programs: [string, string][], validate: boolean): void {
  const dir = mkdtempSync(join(tmpdir(), "pt-glsl-"));
  try {
    for (const [i, [name, src]] of programs.entries()) {
      const file = join(dir, `${name}.comp`);
      writeFileSync(file, src);
      // half with the driver's denormal macro, half without: both preprocessor paths compile
      const defines = i % 2 === 0 ? ["-DPT_VK_DENORM_PRESERVE_F32=1", "-DPT_VK_SUBGROUP=32"] : [];
      const spv = join(dir, `${name}.spv`);
      const r = spawnSync("glslangValidator", ["--target-env", "vulkan1.2", ...defines, "-S", "comp", file, "-o", spv], {
        encoding: "utf8",
      });
      assert.equal(r.status, 0, `glslangValidator rejected ${name}:\n${(r.stdout + r.stderr).slice(0, 3000)}`);
      if (!validate) continue;
      const v = spawnSync("spirv-val", ["--target-env", "vulkan1.2", spv], { encoding: "utf8" });
      assert.equal(v.status, 0, `spirv-val rejected ${name}:\n${(v.stdout + v.stderr).slice(0, 3000)}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
