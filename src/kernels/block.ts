/**
 * Argument blocks for pt_launch: [nbuf, buffer handles..., kind-specific slots]. Layouts
 * are slots.ts's table (blocks.h says what the fields mean): fill writes a kind's fields by
 * name in the table's order, and at() places a hot path's writes at the table's slots. Blocks are
 * written into one reused Float64Array because a launch is a synchronous call and the
 * shim keeps no pointer into it afterwards; a block built while another is open (never
 * the case today) gets its own storage.
 */
import { type DType, DTYPES } from "../base/dtype.ts";
import { type Field, type Kind, LAYOUTS } from "./slots.ts";

/** A strided window on a device buffer; what kernels read and write. */
export interface ViewRef {
  readonly buf: number;
  readonly dtype: DType;
  readonly offset: number;
  readonly strides: readonly number[];
}

/** A VIEW with strides of its own (permuted, broadcast, or a subset of its dims). */
export type ViewWith = readonly [ViewRef, readonly number[]];
/** What fill takes for a field: a number, a shape or stride list, a VIEW, or a run of them. */
export type FieldValue = number | readonly number[] | ViewRef | ViewWith | readonly (ViewRef | ViewWith)[];

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
  /** The furthest slot written: at() may move back (a test rewriting one field). */
  #end = 0;
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

  /** Moves the write position to `slot` of the kind's block (slots.ts's slotOf). */
  at(slot: number): this {
    this.#grow(slot - this.#n);
    if (this.#n > this.#end) this.#end = this.#n;
    this.#n = slot;
    return this;
  }

  /**
   * Writes the fields of a `kind` block (slots.ts) from `values` by name, in the table's
   * order. A count field may be left out: it is the length of the shape or run it counts.
   * A missing or unknown name throws, so a filler cannot drift from the table.
   */
  fill(kind: Kind, values: Readonly<Record<string, FieldValue>>): this {
    const fields: readonly Field[] = LAYOUTS[kind];
    for (const name in values) {
      if (!fields.some((x) => x.name === name)) throw new Error(`the ${kind} block has no field ${name}`);
    }
    for (const field of fields) {
      const v = values[field.name];
      if (field.type === "count" && v === undefined) {
        this.put((values[field.of!] as readonly unknown[]).length);
        continue;
      }
      if (v === undefined) throw new Error(`the ${kind} block needs its field ${field.name}`);
      switch (field.type) {
        case "shape":
        case "strides":
          this.pad8(v as readonly number[], field.type === "shape" ? 1 : 0);
          break;
        case "view":
          this.#viewOf(v as ViewRef | ViewWith);
          break;
        case "views":
          for (const x of v as readonly (ViewRef | ViewWith)[]) this.#viewOf(x);
          break;
        case "values":
          for (const x of v as readonly number[]) this.put(x);
          break;
        case "buffer":
          this.buffer(v as number);
          break;
        default:
          this.put(v as number);
      }
    }
    return this;
  }

  #viewOf(v: ViewRef | ViewWith): void {
    if (Array.isArray(v)) this.view((v as ViewWith)[0], (v as ViewWith)[1]);
    else this.view(v as ViewRef);
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
    return window(s, start, 1 + MAX_BUFS + Math.max(this.#n, this.#end));
  }

  /** Gives the scratch back when a block is abandoned (an error while filling it). */
  abandon(): void {
    if (this.#shared) scratchBusy = false;
  }
}
