/**
 * The HIP renderer: the CUDA renderer's programs in HIP's dialect, for hiprtc, following
 * native/src/backends/cuda/params.h (the HIP build of the driver shares it). Kernels come
 * from the same CUDA-C renderer as CUDA (src/kernels/cuda.ts), so the two backends run one
 * set of algorithms with one set of rules; what HIP changes (wave size, contraction, launch
 * bounds) is kept in src/kernels/hip/preamble.ts. Sources end with a NUL byte, as CUDA's do.
 *
 * Checking HIP programs without an AMD GPU: PT_CUDA_KERNELS=hip makes the CUDA device run
 * the HIP renderer's output, with a small hip-on-cuda header in front
 * (src/kernels/hip/cuda_compat.ts), so the whole suite under PT_DEVICE=cuda compiles every
 * HIP program with NVRTC and compares its results with the CPU's. The switch lives here,
 * not in shared code; renderers.ts calls registerHipRenderers() after CUDA's registration.
 */
import type { Renderer } from "./launch.ts";
import type { Expr } from "./ir.ts";
import { runtime } from "../runtime/native.ts";
import { CUDA_TEMPLATES, cudaElementwiseReduceSource, cudaElementwiseSource, cudaRenderer, cudaTemplateSource } from "./cuda.ts";
import { cudaToHip } from "./hip/preamble.ts";
import { HIP_ON_CUDA } from "./hip/cuda_compat.ts";

/** Template kinds (blocks.h): the CUDA renderer's. */
export const HIP_TEMPLATES: readonly string[] = Object.keys(CUDA_TEMPLATES);

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const toBytes = (text: string): Uint8Array => encoder.encode(`${text}\0`);
const fromBytes = (b: Uint8Array): string => decoder.decode(b[b.length - 1] === 0 ? b.subarray(0, b.length - 1) : b);

/** HIP source of an elementwise program, from its expression (for tests and tools). */
export function hipElementwiseSource(expr: Expr, ninputs: number): string {
  return cudaToHip(cudaElementwiseSource(expr, ninputs));
}

/** HIP source of an "ewreduce" program, from its expression (for tests and tools). */
export function hipElementwiseReduceSource(expr: Expr, ninputs: number, op?: number): string {
  return cudaToHip(cudaElementwiseReduceSource(expr, ninputs, op));
}

/** HIP source of a template kind. */
export function hipTemplateSource(name: string): string {
  if (!HIP_TEMPLATES.includes(name)) {
    throw new Error(`hip renderer: no template "${name}" (expected one of ${HIP_TEMPLATES.join(", ")})`);
  }
  return cudaToHip(cudaTemplateSource(name));
}

/** A renderer that rewrites the CUDA renderer's programs with `wrap`; prefix replaces the key's "cuda". */
function derived(prefix: string, wrap: (cuda: string) => string): Renderer {
  const convert = (p: { kind: string; source: Uint8Array; key: string }) => ({
    kind: p.kind,
    source: toBytes(wrap(fromBytes(p.source))),
    key: `${prefix}:${p.key.replace(/^cuda:/, "")}`,
  });
  return {
    elementwise: (expr, ninputs) => convert(cudaRenderer.elementwise(expr, ninputs)),
    elementwiseLinear: (expr, ninputs, dtypes) => convert(cudaRenderer.elementwiseLinear!(expr, ninputs, dtypes)),
    elementwiseReduce: (expr, ninputs, op) => convert(cudaRenderer.elementwiseReduce!(expr, ninputs, op)),
    template: (name) => convert(cudaRenderer.template(name)),
  };
}

export const hipRenderer: Renderer = derived("hip", cudaToHip);

/** HIP programs for the CUDA device, behind the hip-on-cuda header (PT_CUDA_KERNELS=hip). */
export const hipOnCudaRenderer: Renderer = derived("hip-on-cuda", (cuda) => HIP_ON_CUDA + cudaToHip(cuda));

/** Which kernels the CUDA device runs: "cuda" (its own, the default) or "hip". */
export function cudaKernels(): "cuda" | "hip" {
  const v = (runtime.env("PT_CUDA_KERNELS") ?? "").trim().toLowerCase();
  if (v === "" || v === "cuda") return "cuda";
  if (v === "hip") return "hip";
  throw new Error(`PT_CUDA_KERNELS="${v}": expected "cuda" (the default) or "hip"`);
}

/** Registers the HIP renderer, and the hip-on-cuda one for CUDA when PT_CUDA_KERNELS=hip. */
export function registerHipRenderers(register: (language: string, r: Renderer) => void): void {
  register("hip", hipRenderer);
  if (cudaKernels() === "hip") register("cuda", hipOnCudaRenderer);
}
