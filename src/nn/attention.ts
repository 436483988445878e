/**
 * Scaled dot-product attention. float32 inputs without dropout run the fused "attention" template (online softmax, no
 * [L, S] matrix in memory; one program per feature size of ATTENTION_SIZES); other dtypes, dropout and features past
 * the largest size run the composition of matmul, softmax and matmul, which is also what the gradient recomputes: the
 * weights are rebuilt in backward rather than kept from the forward, as flash attention does.
 */
import { allocTensor, type Tensor } from "../tensor/tensor.ts";
import { TensorError } from "../base/errors.ts";
import { broadcastShapes, broadcastStrides, fmtShape, MAX_RANK } from "../base/shape.ts";
import { runTemplate } from "../kernels/launch.ts";
import { ATTENTION_SIZES } from "../kernels/templates/attention.ts";
import { commonDevice, where } from "../tensor/elementwise.ts";
import { ones, zeros } from "../tensor/creation.ts";
import { rand } from "../tensor/random.ts";
import { tidy } from "../tensor/tidy.ts";
import { gradEnabled, record, wantsGrad } from "../autograd/graph.ts";
import { unbroadcast } from "../autograd/elementwise.ts";
import { finite, floatTensor } from "./check.ts";
import { softmax } from "./functional.ts";

/** Options of `scaledDotProductAttention`. */
export interface AttentionOptions {
  /** A bool mask (true: attend) or a float mask added to the scores, broadcast to [..., L, S]. */
  attnMask?: Tensor;
  /** Position i attends to positions j <= i (a lower-triangular mask of L x S, top-left aligned); not with attnMask. */
  isCausal?: boolean;
  /** The scores' scale (default 1 / sqrt(E)). */
  scale?: number;
  /** Dropout of the attention weights (default 0); applied as `nn.dropout` does. */
  dropoutP?: number;
}

/**
 * softmax(q k^T * scale + mask) v for q [..., L, E], k [..., S, E] and v [..., S, Ev], batch dims broadcasting, as
 * `torch.nn.functional.scaled_dot_product_attention`. A row with every position masked is NaN, as in PyTorch's math
 * path; with no keys at all (S = 0) the output is zeros, as the math path's empty matmul gives.
 * @throws {TensorError} when the shapes disagree, both isCausal and attnMask are given, or the mask does not broadcast.
 */
export function scaledDotProductAttention(q: Tensor, k: Tensor, v: Tensor, options: AttentionOptions = {}): Tensor {
  const op = "nn.scaledDotProductAttention";
  for (const [what, t] of [["query", q], ["key", k], ["value", v]] as const) {
    if (floatTensor(op, what, t).ndim < 2) {
      throw new TensorError(op, `${what} must be [..., seq, features], got shape ${fmtShape(t.shape)}`);
    }
  }
  const e = q.shape[q.ndim - 1], l = q.shape[q.ndim - 2], s = k.shape[k.ndim - 2], ev = v.shape[v.ndim - 1];
  if (k.shape[k.ndim - 1] !== e) throw new TensorError(op, `key's features ${k.shape[k.ndim - 1]} differ from query's ${e}`);
  if (v.shape[v.ndim - 2] !== s) throw new TensorError(op, `value's sequence ${v.shape[v.ndim - 2]} differs from key's ${s}`);
  const { attnMask, isCausal = false } = options;
  if (isCausal && attnMask !== undefined) throw new TensorError(op, "takes isCausal or attnMask, not both");
  const scale = finite(op, "scale", options.scale ?? 1 / Math.sqrt(e)), p = finite(op, "dropoutP", options.dropoutP ?? 0, 0, 1);
  const device = commonDevice(op, attnMask ? [q, k, v, attnMask] : [q, k, v]);
  const batchOf = (t: Tensor) => t.shape.slice(0, t.ndim - 2);
  const batch = broadcastShapes(op, batchOf(q), batchOf(k), batchOf(v), ...(attnMask && attnMask.ndim > 2 ? [batchOf(attnMask)] : []));
  if (attnMask !== undefined) {
    try {
      broadcastShapes(op, attnMask.shape, [...batch, l, s]);
    } catch {
      throw new TensorError(
        op,
        `attnMask of shape ${fmtShape(attnMask.shape)} does not broadcast to [..., L, S] = ${fmtShape([...batch, l, s])}`,
      );
    }
  }
  if (batch.length + 2 > MAX_RANK) throw new TensorError(op, `batch rank ${batch.length} exceeds ${MAX_RANK - 2}`);
  const size = ATTENTION_SIZES.find((n) => n >= Math.max(e, ev));
  const fused = p === 0 && size !== undefined && [q, k, v].every((t) => t.dtype === "float32") &&
    (attnMask === undefined || attnMask.dtype === "bool" || attnMask.dtype === "float32");
  if (!fused) return composed(q, k, v, attnMask, isCausal, scale, p);
  return tidy(() => {
    // A bool mask becomes the additive one the kernel reads: 0 where attended, -inf elsewhere.
    const additive = attnMask?.dtype === "bool" ? where(attnMask, 0, -Infinity) : attnMask;
    const out = s === 0 ? zeros([...batch, l, ev], { device }) : allocTensor(device, "float32", [...batch, l, ev], op);
    if (s > 0 && out.numel > 0) {
      const bview = (t: Tensor) => {
        const shape = [...batch, t.shape[t.ndim - 2], t.shape[t.ndim - 1]];
        const st = broadcastStrides(t.shape, t.strides, shape);
        return { view: [t, st.slice(0, batch.length)] as [Tensor, number[]], rows: st[batch.length], cols: st[batch.length + 1] };
      };
      const Q = bview(q), K = bview(k), V = bview(v), O = bview(out);
      const M = additive ? bview(additive.expand([...batch, l, s])) : O;
      runTemplate(device, `attention.${size}`, op, (blk) =>
        blk.fill("attention", {
          bshape: batch,
          l,
          s,
          e,
          ev,
          scale_bits: new Uint32Array(Float32Array.of(scale).buffer)[0],
          causal: isCausal ? 1 : 0,
          masked: additive ? 1 : 0,
          q: Q.view,
          q_rows: Q.rows,
          q_cols: Q.cols,
          k: K.view,
          k_rows: K.rows,
          k_cols: K.cols,
          v: V.view,
          v_rows: V.rows,
          v_cols: V.cols,
          mask: M.view,
          mask_rows: M.rows,
          mask_cols: M.cols,
          out: O.view,
          out_rows: O.rows,
          out_cols: O.cols,
        }));
    }
    if (!gradEnabled || ![q, k, v, attnMask].some(wantsGrad)) return out;
    const maskGrad = attnMask !== undefined && attnMask.dtype !== "bool" && wantsGrad(attnMask);
    return record(
      out,
      "scaledDotProductAttention",
      [q, k, v, ...(maskGrad ? [attnMask] : [])],
      [q, k, v, ...(additive ? [additive] : [])],
      (g, saved) => {
        // dS = P * (dP - rowsum(dP * P)) with P recomputed; the scale folds into dQ and dK.
        const [sq, sk, sv] = saved, w = weights(sq, sk, saved[3], isCausal, scale);
        const dp = g.matmul(sv.transpose(-2, -1)), ds = w.mul(dp.sub(dp.mul(w).sum(-1, true)));
        return [
          unbroadcast(ds.matmul(sk).mul(scale), sq.shape),
          unbroadcast(ds.transpose(-2, -1).matmul(sq).mul(scale), sk.shape),
          unbroadcast(w.transpose(-2, -1).matmul(g), sv.shape),
          ...(maskGrad ? [unbroadcast(ds, attnMask.shape)] : []),
        ];
      },
    );
  });
}

/** softmax(q k^T scale + mask) over the keys, mask additive or bool. */
function weights(q: Tensor, k: Tensor, mask: Tensor | undefined, causal: boolean, scale: number): Tensor {
  let scores = q.matmul(k.transpose(-2, -1)).mul(scale);
  const l = q.shape[q.ndim - 2], s = k.shape[k.ndim - 2];
  const m = causal ? ones([l, s], { dtype: "bool", device: q.device }).tril() : mask;
  if (m !== undefined) scores = m.dtype === "bool" ? scores.maskedFill(m.logicalNot(), -Infinity) : scores.add(m);
  return softmax(scores, -1);
}

function composed(q: Tensor, k: Tensor, v: Tensor, mask: Tensor | undefined, causal: boolean, scale: number, p: number): Tensor {
  return tidy(() => {
    let w = weights(q, k, mask, causal, scale);
    if (p > 0) w = w.mul(rand([...w.shape], { device: q.device }).ge(p)).div(1 - p);
    return w.matmul(v);
  });
}
