/**
 * PyTorch-like repr of a tensor:
 *
 *     tensor([[1.0000, 2.0000],
 *             [3.0000, 4.0000]], dtype=float32, device=cpu:0)
 *
 * Tensors of more than 1000 elements show the first and last 3 items of each dim with
 * "..." between (only those items are read from the device) and add shape=[...]. Floats
 * share one format chosen from the data: 4 decimals, or scientific notation when the
 * magnitudes are very large, very small or span more than 1000x. Ints print as is, bools
 * as true/false, non-finite floats as nan/inf/-inf. Formatting never throws: a disposed or
 * unreadable tensor prints as tensor(<disposed>, ...) or tensor(<unreadable: why>, ...).
 */
import type { Tensor } from "./tensor.ts";
import { fmtShape } from "../base/shape.ts";
import { cat, narrow } from "./movement.ts";

const THRESHOLD = 1000;
const EDGE = 3;
const LINE_WIDTH = 80;

export function formatTensor(t: Tensor): string {
  const shape = fmtShape(t.shape);
  if (t.disposed) return `tensor(<disposed>, dtype=${t.dtype}, shape=${shape})`;
  const summarize = t.numel > THRESHOLD;
  let body: string;
  try {
    body = formatBody(t, summarize);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    return `tensor(<unreadable: ${why}>, dtype=${t.dtype}, shape=${shape})`;
  }
  const extra = summarize || (t.numel === 0 && t.ndim !== 1) ? `, shape=${shape}` : "";
  return `tensor(${body}, dtype=${t.dtype}, device=${t.device.id}${extra})`;
}

/** The first and last EDGE items of every dim longer than 2*EDGE, as a small tensor. */
function summaryOf(t: Tensor): Tensor {
  let cur = t;
  try {
    for (let d = 0; d < t.ndim; d++) {
      const n = cur.shape[d];
      if (n <= 2 * EDGE) continue;
      using head = narrow(cur, d, 0, EDGE), tail = narrow(cur, d, n - EDGE, EDGE);
      const next = cat([head, tail], d);
      if (cur !== t) cur.dispose();
      cur = next;
    }
  } catch (e) {
    if (cur !== t) cur.dispose();
    throw e;
  }
  return cur;
}

function formatBody(t: Tensor, summarize: boolean): string {
  const small = summarize ? summaryOf(t) : t;
  let values: ArrayLike<number | bigint>;
  try {
    values = small.toArray();
  } finally {
    if (small !== t) small.dispose();
  }
  // Shape of what was read, and which dims were cut.
  const shape = t.shape.map((n) => (summarize && n > 2 * EDGE ? 2 * EDGE : n));
  const cut = t.shape.map((n) => summarize && n > 2 * EDGE);
  const fmt = formatterFor(t.dtype, values);
  const strs = Array.from({ length: values.length }, (_, i) => fmt(values[i]));
  const width = strs.reduce((w, s) => Math.max(w, s.length), 0);
  const items = strs.map((s) => s.padStart(width));
  if (t.ndim === 0) return items[0];
  let pos = 0;
  // indent: column where this dim's items begin ("tensor(" plus one "[" per outer dim).
  const render = (dim: number, indent: number): string => {
    const n = shape[dim];
    const parts: string[] = [];
    for (let i = 0; i < n; i++) {
      if (cut[dim] && i === EDGE) parts.push("...");
      parts.push(dim === t.ndim - 1 ? items[pos++] : render(dim + 1, indent + 1));
    }
    if (dim === t.ndim - 1) return `[${wrapRow(parts, indent + 1)}]`;
    const sep = "," + "\n".repeat(t.ndim - dim - 1) + " ".repeat(indent + 1);
    return `[${parts.join(sep)}]`;
  };
  return render(0, "tensor(".length);
}

/** Joins a row's items with ", ", breaking lines before they pass LINE_WIDTH. */
function wrapRow(parts: string[], indent: number): string {
  const lines: string[] = [];
  let line = "";
  for (const p of parts) {
    const piece = line === "" ? p : `${line}, ${p}`;
    if (line !== "" && indent + piece.length + 2 > LINE_WIDTH) {
      lines.push(line + ",");
      line = p;
    } else line = piece;
  }
  lines.push(line);
  return lines.join("\n" + " ".repeat(indent));
}

function formatterFor(dtype: string, values: ArrayLike<number | bigint>): (v: number | bigint) => string {
  if (dtype === "bool") return (v) => (Number(v) !== 0 ? "true" : "false");
  if (dtype !== "float32" && dtype !== "float64" && dtype !== "float16" && dtype !== "bfloat16") return (v) => String(v);
  let maxAbs = 0, minAbs = Infinity;
  for (let i = 0; i < values.length; i++) {
    const a = Math.abs(Number(values[i]));
    if (!Number.isFinite(a) || a === 0) continue;
    maxAbs = Math.max(maxAbs, a);
    minAbs = Math.min(minAbs, a);
  }
  const sci = maxAbs > 0 && (maxAbs >= 1e8 || minAbs < 1e-4 || maxAbs / minAbs > 1e3);
  return (v) => {
    const x = Number(v);
    if (Number.isNaN(x)) return "nan";
    if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
    if (sci) return x.toExponential(4).replace(/e([+-])(\d)$/, "e$10$2");
    return x.toFixed(4);
  };
}
