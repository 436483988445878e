/**
 * Argument blocks for pt_launch: [nbuf, buffer handles..., kind-specific slots]. Layouts
 * are kernels.h's; a VIEW is [buffer index, dtype code, offset, stride x 8].
 */
import { type DType, DTYPES } from "../tensor/dtype.ts";

/** A strided window on a device buffer; what kernels read and write. */
export interface ViewRef {
  readonly buf: number;
  readonly dtype: DType;
  readonly offset: number;
  readonly strides: readonly number[];
}

export class ArgBlock {
  readonly #bufs: number[] = [];
  readonly #slots: number[] = [];

  push(...values: number[]): this {
    for (const v of values) this.#slots.push(v);
    return this;
  }

  /** Up to 8 values padded with `pad` (shapes pad with 1, strides with 0). */
  pad8(values: readonly number[], pad: number): this {
    for (let i = 0; i < 8; i++) this.#slots.push(i < values.length ? values[i] : pad);
    return this;
  }

  bufferIndex(handle: number): number {
    let i = this.#bufs.indexOf(handle);
    if (i < 0) i = this.#bufs.push(handle) - 1;
    return i;
  }

  /** A VIEW with explicit strides (e.g. permuted or broadcast), defaulting to the view's own. */
  view(v: ViewRef, strides: readonly number[] = v.strides): this {
    this.push(this.bufferIndex(v.buf), DTYPES[v.dtype].code, v.offset);
    return this.pad8(strides, 0);
  }

  /** Just the buffer index (blocks that name a buffer without a view). */
  buffer(handle: number): this {
    return this.push(this.bufferIndex(handle));
  }

  finish(): Float64Array {
    const out = new Float64Array(1 + this.#bufs.length + this.#slots.length);
    out[0] = this.#bufs.length;
    out.set(this.#bufs, 1);
    out.set(this.#slots, 1 + this.#bufs.length);
    return out;
  }
}
