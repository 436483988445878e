/**
 * The CPU's renderer: programs are the expression's bytecode itself (ir.ts), which the CPU
 * backend compiles into its own loop program (native/src/backends/cpu/ew_compile.c); templates are the C kernels
 * built into the shim, so their source is empty.
 */
import { kindOf, type Renderer } from "./launch.ts";
import { encodeBytecode } from "./ir.ts";

export const bytecodeRenderer: Renderer = {
  elementwise(expr, ninputs) {
    const words = encodeBytecode(expr, ninputs);
    return { kind: "ew", source: new Uint8Array(words.buffer), key: `ew:${words.join(",")}` };
  },
  elementwiseReduce(expr, ninputs) {
    const words = encodeBytecode(expr, ninputs);
    return { kind: "ewreduce", source: new Uint8Array(words.buffer), key: `ewreduce:${words.join(",")}` };
  },
  template(name) {
    return { kind: kindOf(name), source: new Uint8Array(0), key: `t:${kindOf(name)}` };
  },
};
