/**
 * Gradient rules of matmul and dot (tensor/linalg.ts calls these on its results when an
 * operand requires gradients), as PyTorch's: for C = A @ B, dA = dC @ Bᵀ and dB = Aᵀ @ dC,
 * with a 1-D operand taken as a row (A) or a column (B), as the forward takes it, and the
 * gradient summed back over the batch dims that broadcasting expanded (unbroadcast).
 * Rules run with recording off.
 */
import type { Tensor } from "../tensor/tensor.ts";
import { record } from "./graph.ts";
import { unbroadcast } from "./elementwise.ts";

export function matmul(a: Tensor, b: Tensor, out: Tensor): Tensor {
  const wantA = a.requiresGrad, wantB = b.requiresGrad, aShape = a.shape, bShape = b.shape;
  // As matrices: a 1-D a is a row [1, K], a 1-D b a column [K, 1].
  const a2 = aShape.length === 1 ? [1, aShape[0]] : aShape, b2 = bShape.length === 1 ? [bShape[0], 1] : bShape;
  const M = a2[a2.length - 2], N = b2[b2.length - 1];
  // Each gradient reads the other operand only.
  const saved = [...(wantB ? [a] : []), ...(wantA ? [b] : [])];
  return record(out, "matmul", [a, b], saved, (g, s) => {
    const A = wantB ? s[0].reshape(a2 as number[]) : null, B = wantA ? s[s.length - 1].reshape(b2 as number[]) : null;
    // g as [...batch, M, N], with the dims a 1-D operand dropped put back.
    const gm = g.reshape([...g.shape.slice(0, g.ndim - (aShape.length > 1 ? 1 : 0) - (bShape.length > 1 ? 1 : 0)), M, N]);
    return [
      B === null ? null : unbroadcast(gm.matmul(B.transpose()), a2).reshape(aShape as number[]),
      A === null ? null : unbroadcast(A.transpose().matmul(gm), b2).reshape(bShape as number[]),
    ];
  });
}

export function dot(a: Tensor, b: Tensor, out: Tensor): Tensor {
  const wantA = a.requiresGrad, wantB = b.requiresGrad;
  const saved = [...(wantB ? [a] : []), ...(wantA ? [b] : [])];
  return record(out, "dot", [a, b], saved, (g, s) => [
    wantA ? s[s.length - 1].mul(g) : null,
    wantB ? s[0].mul(g) : null,
  ]);
}
