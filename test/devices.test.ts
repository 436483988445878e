import * as pt from "../mod.ts";
import { assert, assertTensorError, env, test } from "./harness.ts";

test("every backend is listed, with devices or a reason", () => {
  const list = pt.backends();
  const names = list.map((b) => b.name);
  for (const n of ["cpu", "cuda", "vulkan", "metal", "hip"]) assert.ok(names.includes(n), `backend ${n} is missing from ${names}`);
  for (const b of list) {
    if (b.available) assert.ok(b.devices.length > 0);
    else assert.ok(b.reason.length > 0, `${b.name} is unavailable without a reason`);
  }
  const cpu = list.find((b) => b.name === "cpu")!;
  assert.ok(cpu.available, "the CPU backend always works");
  assert.equal(cpu.devices[0].id, "cpu:0");
  assert.ok(cpu.devices[0].memoryTotal > 0);
});

test("PT_REQUIRE names a backend that must be present", () => {
  const required = env("PT_REQUIRE");
  if (!required) {
    console.log("PT_REQUIRE is not set: nothing is required beyond the CPU");
    return;
  }
  for (const name of required.split(",")) {
    const b = pt.backends().find((x) => x.name === name.trim());
    assert.ok(b, `PT_REQUIRE=${required}: this build has no backend "${name}"`);
    assert.ok(b.available, `PT_REQUIRE=${required}: ${name} is unavailable: ${b.reason}`);
  }
});

test("devices are selected by name and index", () => {
  const d = pt.device("cpu");
  assert.equal(d, pt.device("cpu:0"));
  assert.equal(d.id, "cpu:0");
  using t = pt.zeros([2], { device: "cpu:0" });
  assert.equal(t.device, d);
  assertTensorError(() => pt.device("cpu:7"), /cpu:7 does not exist/);
  assertTensorError(() => pt.device("nosuch"), /unknown backend "nosuch"/);
});

test("withDevice restores the previous default, also when the function throws", () => {
  const before = pt.defaultDevice();
  const inside = pt.withDevice("cpu:0", () => pt.defaultDevice());
  assert.equal(inside.id, "cpu:0");
  assert.equal(pt.defaultDevice(), before);
  assert.throws(() =>
    pt.withDevice("cpu", () => {
      throw new Error("boom");
    }), /boom/);
  assert.equal(pt.defaultDevice(), before);
});

test("unavailable backends say why when selected", () => {
  for (const b of pt.backends().filter((x) => !x.available)) {
    assertTensorError(() => pt.device(b.name), new RegExp(`${b.name} has no device`));
  }
});
