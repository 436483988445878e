/**
 * A float32 convolution's columns through the "im2col" template (one kernel, where the composition pads and stacks
 * kH * kW strided slices), with its gradient rule col2im: each tap's gradient added in place into its strided window of
 * a zero canvas the size of the padded input, whose interior is the input's gradient.
 */
import { allocTensor, type Tensor } from "../tensor/tensor.ts";
import { zeros } from "../tensor/creation.ts";
import { tidy } from "../tensor/tidy.ts";
import { gradEnabled, record, wantsGrad } from "../autograd/graph.ts";
import { runTemplate } from "../kernels/launch.ts";

type Pair = readonly [number, number];

/** For each kernel position, the strided slice [N, C, OH, OW] of the (already padded) input it reads (views). */
export function taps(x: Tensor, k: Pair, s: Pair, d: Pair, out: Pair): Tensor[] {
  const slices: Tensor[] = [];
  for (let i = 0; i < k[0]; i++) {
    for (let j = 0; j < k[1]; j++) {
      slices.push(
        x.slice(2, i * d[0], i * d[0] + (out[0] - 1) * s[0] + 1, s[0]).slice(3, j * d[1], j * d[1] + (out[1] - 1) * s[1] + 1, s[1]),
      );
    }
  }
  return slices;
}

/** Whether the fused columns serve a convolution of x by weight: both float32, and every plane index within int32. */
export const im2colFits = (x: Tensor, weight: Tensor, out: Pair): boolean =>
  x.dtype === "float32" && weight.dtype === "float32" && out[0] * out[1] < 2 ** 31 && x.shape[2] < 2 ** 31 && x.shape[3] < 2 ** 31;

/**
 * The columns [N, C, kH kW, OH OW] of x [N, C, H, W] for kernel k, stride s, dilation d and padding `before` (top,
 * left), OH x OW outputs: element (n, c, i kW + j, oy OW + ox) is x[n, c, oy s - before + i d, ox s - before + j d],
 * or 0 in the padding.
 */
export function im2col(op: string, x: Tensor, k: Pair, s: Pair, d: Pair, before: Pair, out: Pair): Tensor {
  const [n, c, h, w] = x.shape;
  const cols = allocTensor(x.device, "float32", [n, c, k[0] * k[1], out[0] * out[1]], op);
  if (cols.numel > 0) {
    runTemplate(x.device, "im2col", op, (blk) =>
      blk.fill("im2col", {
        n,
        c,
        h,
        w,
        kh: k[0],
        kw: k[1],
        sh: s[0],
        sw: s[1],
        ph: before[0],
        pw: before[1],
        dh: d[0],
        dw: d[1],
        oh: out[0],
        ow: out[1],
        in: x,
        out: cols,
      }));
  }
  if (!gradEnabled || !wantsGrad(x)) return cols;
  return record(cols, "im2col", [x], [], (g) => [col2im(g, x.shape, k, s, d, before, out)]);
}

/** The gradient of im2col: columns g summed back onto the input positions they were read from. */
function col2im(g: Tensor, shape: readonly number[], k: Pair, s: Pair, d: Pair, before: Pair, out: Pair): Tensor {
  return tidy(() => {
    const [n, c, h, w] = shape;
    const span = (i: number) => (out[i] - 1) * s[i] + (k[i] - 1) * d[i] + 1;
    const canvas = zeros([n, c, Math.max(span(0), before[0] + h), Math.max(span(1), before[1] + w)], { dtype: g.dtype, device: g.device });
    const grads = g.reshape([n, c, k[0] * k[1], out[0], out[1]]);
    taps(canvas, k, s, d, out).forEach((window, t) => window.add_(grads.slice(2, t, t + 1).squeeze(2)));
    return canvas.slice(2, before[0], before[0] + h).slice(3, before[1], before[1] + w);
  });
}
