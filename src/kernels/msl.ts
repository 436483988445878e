/**
 * The MSL renderer: kernel IR and templates as Metal Shading Language for the Metal
 * driver's newLibraryWithSource (fast math off), following the contract of
 * native/src/backends/metal/params.h. Every program defines
 *     kernel void pt_main(device uchar *b0 [[buffer(0)]], ..., constant pt_mtl_params &p
 *         [[buffer(16)]], device pt_mtl_error *err [[buffer(17)]], uint3 group, uint3 groups,
 *         uint lid)
 * and reads the same argument blocks as the CPU kernels (native/src/core/blocks.h) with the
 * same rules: conversions, integer wrap, floor division, NaN rules, Philox mapping. It is
 * a port of the CUDA renderer (cuda.ts), whose programs were checked bit-exact against the
 * CPU on an H200.
 *
 * Metal has no double: the argument block arrives as ai (exact integers) and af (floats),
 * f64 tensors are refused by the driver, and what the CPU computes in double (f64 registers
 * of fused expressions, float accumulation in reduce/scan/scatter-add, philox's a+u(b-a))
 * is computed in float-float (msl/df.ts), ~48 significant bits. Results rounded to f32
 * therefore match the CPU except near rounding midpoints, with a different summation
 * order in reductions, and float (not double) accuracy in transcendental functions of f64
 * registers and in philox's normal.
 *
 * UNVERIFIED BY A METAL COMPILER: no Mac runs this suite. test/msl_render.test.ts checks the
 * text, compiles every program as C++17 (g++) against a stand-in header for MSL's keywords
 * and built-ins, and runs the numeric helpers on the host; it cannot check Metal semantics
 * (address spaces, barriers, atomics) or the GPU's arithmetic. Sources end with a NUL byte.
 */
import { type Renderer, sourceRenderer } from "./launch.ts";
import { encodeBytecode, type Expr } from "./ir.ts";
import { MSL_DIALECT, PREAMBLE } from "./msl/preamble.ts";
import { DF_HELPERS } from "./msl/df.ts";
import { MSL_EW, renderEwReduce } from "./msl/elementwise.ts";
import { ewPrograms, ewSourceOf } from "./templates/ew_linear.ts";
import { REDUCE } from "./msl/reduce.ts";
import type { SortPlan } from "./templates/sort.ts";
import { templateSource, templateTable } from "./templates/table.ts";
import { MATMUL, NORMAL_Z } from "./msl/random.ts";

export { KERNEL_HEAD, PARAMS } from "./msl/preamble.ts";

/** sort: 16 of Metal's 32 KiB of threadgroup memory, where long rows' steps inside 1024 pairs run. */
export const MSL_SORT: SortPlan = { slots: 2048, chunks: true, unroll: 1 };

/** Template kinds (blocks.h) and their pt_main, after the preamble and the df helpers. */
export const MSL_TEMPLATES = templateTable(MSL_DIALECT, { reduce: REDUCE, matmul: MATMUL, sort: MSL_SORT, normalZ: NORMAL_Z });

/** MSL source of an elementwise program, from its bytecode (for tests and tools). */
export const mslElementwiseSource = ewSourceOf(MSL_EW);

/** MSL source of a template kind. */
export const mslTemplateSource = templateSource("msl", MSL_TEMPLATES, () => PREAMBLE + DF_HELPERS);

/** MSL source of an "ewreduce" program (a reduction of the expression's values), from its expression. */
export function mslElementwiseReduceSource(expr: Expr, ninputs: number): string {
  return renderEwReduce(encodeBytecode(expr, ninputs));
}

export const mslRenderer: Renderer = sourceRenderer("msl", ewPrograms(MSL_EW), mslTemplateSource, false, renderEwReduce);
