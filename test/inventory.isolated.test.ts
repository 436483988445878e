/**
 * Inventory never creates a context. This file runs in a process of its own (scripts/test.sh
 * runs *.isolated.test.ts separately), so no earlier test has opened a device: every device
 * starts without a context, listing must leave it so, and first use creates one.
 */
import * as pt from "../mod.ts";
import { hasContext } from "../src/runtime/device.ts";
import { assert, test } from "./harness.ts";

test("listing devices creates no context; the first op on a device does", () => {
  const listed = pt.devices();
  assert.ok(listed.length > 0);
  for (const d of listed) assert.equal(hasContext(d), false, `${d.id} had a context before anything used it`);
  for (let i = 0; i < 3; i++) pt.backends();
  for (const d of pt.devices()) assert.equal(hasContext(d), false, `listing created a context on ${d.id}`);
  const dev = pt.defaultDevice();
  assert.equal(hasContext(dev.info), false, "choosing the default device must not open it");
  using t = pt.ones([4]);
  assert.equal(t.sum().item(), 4);
  assert.equal(hasContext(dev.info), true, `${dev.id} has no context after an op ran on it`);
  dev.close();
  assert.equal(hasContext(dev.info), false, `${dev.id} kept its context after close()`);
});
