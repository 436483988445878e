/**
 * The CUDA renderer: kernel IR and templates as CUDA C for NVRTC, following the contract of
 * native/src/backends/cuda/params.h. Every program defines
 *     extern "C" __global__ void pt_main(const pt_params p)
 * and reads the same argument blocks as the CPU kernels (native/src/core/blocks.h), with the same
 * results: conversions, integer wrap, floor division, NaN rules, Philox mapping.
 *
 * Elementwise programs are rendered from the expression's bytecode (ir.ts), so the key is
 * the bytecode and one structure gives one source, whatever the sizes, strides, dtypes of
 * the views or constant values (those are read from the block at run time). Launches with
 * the linear layout (launch.ts: every view contiguous, one buffer each) take a second
 * program per structure and view dtypes, with no layout decoding and the dtypes fixed, which
 * brings a small captured kernel close to a bare hand-written one (docs/measurements.md).
 * A reduction of an expression ("ewreduce", blocks.h) is rendered
 * from the same bytecode: the reduce template's passes over values computed as they are
 * read (cuda/elementwise.ts, cuda/reduce.ts), in that template's order. Sources end
 * with a NUL byte, so a driver may hand them to nvrtcCreateProgram as they are.
 *
 * Compiling: plain NVRTC with -fmad=false (the arithmetic that must round once per op uses
 * the *_rn intrinsics anyway). Never -use_fast_math or -ftz=true: the CPU backend keeps
 * f32 subnormals, and flushing them changes comparisons, counts and conversions. Every
 * program was checked that way on an H200 against the CPU kernels (3044 random cases:
 * bit-exact except transcendental ulps, float sum order and f32 matmul fma);
 * test/cuda_render.test.ts checks the text on any machine and, where g++ exists, its
 * syntax as C++.
 */
import { type Renderer, sourceRenderer } from "./launch.ts";
import { encodeBytecode, type Expr } from "./ir.ts";
import { CUDA_DIALECT, PREAMBLE } from "./cuda/preamble.ts";
import { CUDA_EW, renderElementwiseReduce } from "./cuda/elementwise.ts";
import { ewPrograms, ewSourceOf } from "./templates/ew_linear.ts";
import { REDUCE } from "./cuda/reduce.ts";
import type { SortPlan } from "./templates/sort.ts";
import { templateSource, templateTable } from "./templates/table.ts";
import { MATMUL } from "./cuda/random.ts";

export { PARAMS } from "./cuda/preamble.ts";

/** sort: 32 KiB of shared memory (five blocks an SM), where long rows' steps inside 2048 pairs run. */
export const CUDA_SORT: SortPlan = { slots: 4096, chunks: true, unroll: 1 };

/** Template kinds (blocks.h) and their pt_main, after the preamble. */
export const CUDA_TEMPLATES = templateTable(CUDA_DIALECT, { reduce: REDUCE, matmul: MATMUL, sort: CUDA_SORT });

/** CUDA C source of an elementwise program, from its bytecode (for tests and tools). */
export const cudaElementwiseSource = ewSourceOf(CUDA_EW);

/** CUDA C source of an "ewreduce" program (a reduction of the expression's values), from its bytecode. */
export function cudaElementwiseReduceSource(expr: Expr, ninputs: number, op?: number): string {
  return renderElementwiseReduce(encodeBytecode(expr, ninputs), op);
}

/** CUDA C source of a template kind. */
export const cudaTemplateSource = templateSource("cuda", CUDA_TEMPLATES, () => PREAMBLE);

export const cudaRenderer: Renderer = sourceRenderer("cuda", ewPrograms(CUDA_EW), cudaTemplateSource, true, renderElementwiseReduce, true);
