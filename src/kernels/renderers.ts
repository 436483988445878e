/** Registers the renderer of every kernel language with the launcher. Imported once, by mod.ts. */
import { registerRenderer } from "./launch.ts";
import { bytecodeRenderer } from "./bytecode.ts";
import { cudaRenderer } from "./cuda.ts";
import { mslRenderer } from "./msl.ts";
import { glslRenderer } from "./glsl.ts";
import { registerHipRenderers } from "./hip.ts";

registerRenderer("bytecode", bytecodeRenderer);
registerRenderer("cuda", cudaRenderer);
registerRenderer("glsl", glslRenderer);
registerHipRenderers(registerRenderer); // "hip", and "cuda" again when PT_CUDA_KERNELS=hip
registerRenderer("msl", mslRenderer);
