/**
 * The GLSL renderer (the Vulkan backend's language): kernel IR and templates as GLSL 4.60
 * compute shaders, following native/src/backends/vulkan/params.h: local_size_x 256, the
 * launch record reached by device address through the push constant, buffers by device
 * address, the error block, and the dispatch shape of each kind. Every program reads the
 * same argument blocks as the CPU kernels (native/src/core/blocks.h) with the same results:
 * conversions, integer wrap, floor division, NaN rules, the Philox mapping. It is the
 * port of the CUDA renderer (cuda.ts); where GLSL differs: arithmetic that must round once
 * is `precise`, f32 division/sqrt and every transcendental go through double (math.ts),
 * and matmul is a real tiled kernel since there is no vendor BLAS.
 *
 * Elementwise programs are rendered from the expression's bytecode (ir.ts), so the key is
 * the bytecode and one structure gives one source, whatever the sizes, strides, dtypes of
 * the views or constant values. Launches with the linear layout (launch.ts: every view
 * contiguous, one buffer each) take a second program per structure and view dtypes, with
 * no layout decoding and the dtypes fixed, which costs the GPU less per launch. Reductions
 * of an expression's values ("ewreduce", glsl/reduce.ts renderEwReduce) run the reduce
 * template's body over the expression computed from the same bytecode, so the expression is
 * never written to memory. Sources end with a NUL byte (the driver accepts it) and are
 * rendered once per key. test/glsl_render.test.ts checks the text and, where
 * glslangValidator exists, that each program compiles to valid SPIR-V for Vulkan 1.2.
 */
import { type Renderer, sourceRenderer } from "./launch.ts";
import { GLSL_DIALECT, PREAMBLE } from "./glsl/preamble.ts";
import { MATH } from "./glsl/math.ts";
import { GLSL_EW } from "./glsl/elementwise.ts";
import { ewPrograms, ewSourceOf } from "./templates/ew_linear.ts";
import { REDUCE, renderEwReduce } from "./glsl/reduce.ts";
import type { SortPlan } from "./templates/sort.ts";
import { templateSource, templateTable } from "./templates/table.ts";
import { MATMUL } from "./glsl/random.ts";

/** sort: 16 KiB (lavapipe has 32); no runs in shared memory, 8 comparators a pass: llvmpipe's loop limit ends rows at 2^20, not 2^17. */
export const GLSL_SORT: SortPlan = { slots: 2048, chunks: false, unroll: 8 };

/** Template kinds (blocks.h) and their main(), after the preamble (and math where used). */
export const GLSL_TEMPLATES = templateTable(GLSL_DIALECT, { reduce: REDUCE, matmul: MATMUL, sort: GLSL_SORT });

/** Templates that call math.ts (the rest skip its text, and its compile time). */
const USES_MATH = new Set(["philox", "rownorm"]);

/** GLSL source of an elementwise program, from its bytecode (for tests and tools). */
export const glslElementwiseSource = ewSourceOf(GLSL_EW);

/** GLSL source of a template kind. */
export const glslTemplateSource = templateSource("glsl", GLSL_TEMPLATES, (kind) => PREAMBLE + (USES_MATH.has(kind) ? MATH : ""));

export const glslRenderer: Renderer = sourceRenderer("glsl", ewPrograms(GLSL_EW), glslTemplateSource, true, renderEwReduce);
