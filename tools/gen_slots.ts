/**
 * Writes native/src/core/slots.h from src/kernels/slots.ts's table:
 *   deno run --allow-write tools/gen_slots.ts
 * test/slots.test.ts fails while the checked-in header differs from what this writes.
 */
import { writeFileSync } from "node:fs";
import { slotsHeader } from "../src/kernels/slots.ts";

const path = new URL("../native/src/core/slots.h", import.meta.url).pathname;
writeFileSync(path, slotsHeader());
console.log(`wrote ${path}`);
