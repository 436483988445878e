/**
 * Registers the renderers of the GPU kernel languages with the launcher (the CPU's
 * "bytecode" renderer is built into launch.ts). Imported once, by mod.ts.
 */
import { registerRenderer } from "./launch.ts";
import { cudaRenderer } from "./cuda.ts";
import { mslRenderer } from "./msl.ts";
import { glslRenderer } from "./glsl.ts";
import { registerHipRenderers } from "./hip.ts";

registerRenderer("cuda", cudaRenderer);
registerRenderer("glsl", glslRenderer);
registerHipRenderers(registerRenderer); // "hip", and "cuda" again when PT_CUDA_KERNELS=hip
registerRenderer("msl", mslRenderer);
