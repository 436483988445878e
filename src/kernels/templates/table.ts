/**
 * The template kinds of blocks.h as every language renders them: the written-once templates over the language's
 * dialect, with what a language gives of its own (reduce's program, matmul, sort's plan, Metal's normal draw).
 */
import type { Dialect } from "../dialect.ts";
import { gather, indexGet, indexPut, maskedSelect, nonzero, scatter } from "./index.ts";
import { scan } from "./reduce.ts";
import { sort, type SortPlan } from "./sort.ts";
import { philox } from "./random.ts";
import { attention, ATTENTION_SIZES } from "./attention.ts";
import { rownorm } from "./rownorm.ts";
import { im2col } from "./im2col.ts";

/** What a language writes itself, or sizes, of the template kinds. */
export interface OwnTemplates {
  readonly reduce: string;
  readonly matmul: string;
  readonly sort: SortPlan;
  /** philox's normal draw where the template's (in pt_facc) does not suit the language. */
  readonly normalZ?: string;
}

/** Each template kind's program text (after the language's preamble). */
export const templateTable = (d: Dialect, own: OwnTemplates): Readonly<Record<string, string>> => ({
  reduce: own.reduce,
  scan: scan(d),
  matmul: own.matmul,
  sort: sort(d, own.sort),
  gather: gather(d),
  scatter: scatter(d),
  index_put: indexPut(d),
  index_get: indexGet(d),
  nonzero: nonzero(d),
  masked_select: maskedSelect(d),
  philox: philox(d, own.normalZ),
  rownorm: rownorm(d),
  im2col: im2col(d),
  ...Object.fromEntries(ATTENTION_SIZES.map((e) => [`attention.${e}`, attention(d, e)])),
});

/** A language's source of a template kind: its prefix, then the kind's text; an unknown kind throws, naming the known ones. */
export const templateSource =
  (language: string, table: Readonly<Record<string, string>>, prefix: (kind: string) => string) => (kind: string): string => {
    if (!Object.hasOwn(table, kind)) {
      throw new Error(`${language} renderer: no template "${kind}" (expected one of ${Object.keys(table).join(", ")})`);
    }
    return prefix(kind) + table[kind];
  };
