/**
 * Argument blocks for pt_launch: [nbuf, buffer handles..., kind-specific slots]. Layouts
 * are blocks.h's; a VIEW is [buffer index, dtype code, offset, stride x 8]. Blocks are
 * written into one reused Float64Array because a launch is a synchronous call and the
 * shim keeps no pointer into it afterwards; a block built while another is open (never
 * the case today) gets its own storage.
 */
import { type DType, DTYPES } from "../base/dtype.ts";

/** A strided window on a device buffer; what kernels read and write. */
export interface ViewRef {
  readonly buf: number;
  readonly dtype: DType;
  readonly offset: number;
  readonly strides: readonly number[];
}

const MAX_BUFS = 16;
let scratch = new Float64Array(1024);
let scratchBusy = false;
/** Finished blocks as views of scratch, by start and end: a launch reuses one instead of making a subarray. */
let windows: Float64Array[][] = [];
function window(s: Float64Array, start: number, end: number): Float64Array {
  if (s !== scratch) return s.subarray(start, end);
  const row = windows[start] ??= [];
  return row[end] ??= s.subarray(start, end);
}

export class ArgBlock {
  readonly #bufs: number[] = [];
  #slots: Float64Array;
  #n = 0;
  readonly #shared: boolean;

  constructor() {
    this.#shared = !scratchBusy;
    scratchBusy = true;
    this.#slots = this.#shared ? scratch : new Float64Array(256);
  }

  #grow(extra: number): void {
    if (1 + MAX_BUFS + this.#n + extra <= this.#slots.length) return;
    const bigger = new Float64Array(Math.max(this.#slots.length * 2, 1 + MAX_BUFS + this.#n + extra));
    bigger.set(this.#slots);
    this.#slots = bigger;
    if (this.#shared) {
      scratch = bigger;
      windows = [];
    }
  }

  push(...values: number[]): this {
    this.#grow(values.length);
    for (const v of values) this.#slots[1 + MAX_BUFS + this.#n++] = v;
    return this;
  }

  /** One value (push without the rest array, for hot paths). */
  put(v: number): this {
    this.#grow(1);
    this.#slots[1 + MAX_BUFS + this.#n++] = v;
    return this;
  }

  /** Up to 8 values padded with `pad` (shapes pad with 1, strides with 0). */
  pad8(values: readonly number[], pad: number): this {
    this.#grow(8);
    const s = this.#slots, base = 1 + MAX_BUFS + this.#n;
    for (let i = 0; i < 8; i++) s[base + i] = i < values.length ? values[i] : pad;
    this.#n += 8;
    return this;
  }

  bufferIndex(handle: number): number {
    let i = this.#bufs.indexOf(handle);
    if (i < 0) {
      if (this.#bufs.length === MAX_BUFS) throw new Error(`a launch names more than ${MAX_BUFS} buffers`);
      i = this.#bufs.push(handle) - 1;
    }
    return i;
  }

  /** A VIEW with explicit strides (e.g. permuted or broadcast), defaulting to the view's own. */
  view(v: ViewRef, strides: readonly number[] = v.strides): this {
    const b = this.bufferIndex(v.buf);
    this.#grow(3);
    const s = this.#slots, base = 1 + MAX_BUFS + this.#n;
    s[base] = b;
    s[base + 1] = DTYPES[v.dtype].code;
    s[base + 2] = v.offset;
    this.#n += 3;
    return this.pad8(strides, 0);
  }

  /** Just the buffer index (blocks that name a buffer without a view). */
  buffer(handle: number): this {
    return this.push(this.bufferIndex(handle));
  }

  /** The finished block (valid until the next block is built); releases the scratch. */
  finish(): Float64Array {
    const nb = this.#bufs.length, start = MAX_BUFS - nb;
    const s = this.#slots;
    s[start] = nb;
    for (let i = 0; i < nb; i++) s[start + 1 + i] = this.#bufs[i];
    if (this.#shared) scratchBusy = false;
    return window(s, start, 1 + MAX_BUFS + this.#n);
  }

  /** Gives the scratch back when a block is abandoned (an error while filling it). */
  abandon(): void {
    if (this.#shared) scratchBusy = false;
  }
}
