/* vulkan_floor.c: the floor for polytensor's Vulkan numbers. Plain C with no SDK: it uses
 * the driver's own declarations (native/src/backends/vulkan/vk.h), dlopens the Vulkan
 * loader, and makes the calls the driver makes, minus its bookkeeping: buffers reached by
 * device address, one pipeline whose only interface is a push constant, dispatches and
 * barriers in one command buffer, a timeline semaphore to wait on (polled for up to 200 us
 * before a blocking wait, as the driver waits). The add kernel is
 * embedded as SPIR-V (compiled from the GLSL below with glslangValidator -V --target-env
 * vulkan1.2), so no GLSL compiler is needed at run time. Wall-clock medians; every sample
 * ends with the device idle; results are checked once outside the timing. Prints one
 * "name value unit" line per measurement on stdout (lines starting with # are comments):
 *   dispatch_overhead_small  record 256 x (64-element add + barrier) in one command buffer,
 *                            submit, wait (ms)
 *   replay_256               the same command buffer recorded once, re-submitted + wait (ms)
 *   deferred_alias_copy_materialize  one add over 262144 floats recorded, submitted, waited for (ms):
 *                            the floor of one fused kernel launch + sync
 *   submit_wait_least        that add pre-recorded with no barrier, re-submitted + wait (ms): the
 *                            least a submission and wait cost, below any correct use
 *   fused_pointwise_1080p    clamp((x*1.15-0.02)*0.98, 0, 1) over 3x1080x1920 floats as one
 *                            dispatch + wait; _eager: as its 4 steps (dispatches with barriers) + wait
 *   add_<N> (+ add_gbps)     c = a + b over N floats (default 256M), one dispatch + wait;
 *                            GB/s counts 12 bytes an element (two reads, one write)
 *   copy_<bytes> (+ copy_gbps) vkCmdCopyBuffer of one 4N-byte buffer + wait; GB/s counts
 *                            read + write, so it moves 8N bytes against the add's 12N
 *   semaphore_query_ns       one vkGetSemaphoreCounterValue on the idle timeline semaphore:
 *                            the price of each read in a polled wait
 * Usage: vulkan_floor [elements for the add, default 268435456] [samples, default 20]
 * (lavapipe is slow: try 4194304 5). Exit 2 when there is no loader or device; 1 when a
 * call fails. Build: zig build floor (native/zig-out/bin).
 *
 *   layout(local_size_x = 256) in;
 *   layout(buffer_reference, std430, buffer_reference_align = 4) buffer F32 { float v[]; };
 *   layout(push_constant) uniform P { uint64_t a, b, c, n; } p;
 *   void main() { F32 a = F32(p.a), b = F32(p.b), c = F32(p.c);
 *     uint stride = gl_NumWorkGroups.x * 256u, n = uint(p.n);
 *     for (uint i = gl_GlobalInvocationID.x; i < n; i += stride) c.v[i] = a.v[i] + b.v[i]; }
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "../../native/src/backends/vulkan/vk.h"

static const uint32_t add_spv[] = {
  0x07230203, 0x00010500, 0x0008000b, 0x00000050, 0x00000000, 0x00020011, 0x00000001, 0x00020011,
  0x0000000b, 0x00020011, 0x000014e3, 0x0006000b, 0x00000001, 0x4c534c47, 0x6474732e, 0x3035342e,
  0x00000000, 0x0003000e, 0x000014e4, 0x00000001, 0x0008000f, 0x00000005, 0x00000004, 0x6e69616d,
  0x00000000, 0x0000000f, 0x00000025, 0x00000032, 0x00060010, 0x00000004, 0x00000011, 0x00000100,
  0x00000001, 0x00000001, 0x00030003, 0x00000002, 0x000001cc, 0x00070004, 0x455f4c47, 0x625f5458,
  0x65666675, 0x65725f72, 0x65726566, 0x0065636e, 0x000d0004, 0x455f4c47, 0x735f5458, 0x65646168,
  0x78655f72, 0x63696c70, 0x615f7469, 0x68746972, 0x6974656d, 0x79745f63, 0x5f736570, 0x36746e69,
  0x00000034, 0x00040005, 0x00000004, 0x6e69616d, 0x00000000, 0x00030005, 0x00000009, 0x00323346,
  0x00040006, 0x00000009, 0x00000000, 0x00000076, 0x00030005, 0x0000000b, 0x00000061, 0x00030005,
  0x0000000d, 0x00000050, 0x00040006, 0x0000000d, 0x00000000, 0x00000061, 0x00040006, 0x0000000d,
  0x00000001, 0x00000062, 0x00040006, 0x0000000d, 0x00000002, 0x00000063, 0x00040006, 0x0000000d,
  0x00000003, 0x0000006e, 0x00030005, 0x0000000f, 0x00000070, 0x00030005, 0x00000016, 0x00000062,
  0x00030005, 0x0000001b, 0x00000063, 0x00040005, 0x00000022, 0x69727473, 0x00006564, 0x00070005,
  0x00000025, 0x4e5f6c67, 0x6f576d75, 0x72476b72, 0x7370756f, 0x00000000, 0x00030005, 0x0000002c,
  0x0000006e, 0x00030005, 0x00000031, 0x00000069, 0x00080005, 0x00000032, 0x475f6c67, 0x61626f6c,
  0x766e496c, 0x7461636f, 0x496e6f69, 0x00000044, 0x00040047, 0x00000008, 0x00000006, 0x00000004,
  0x00050048, 0x00000009, 0x00000000, 0x00000023, 0x00000000, 0x00030047, 0x00000009, 0x00000002,
  0x00030047, 0x0000000b, 0x000014ec, 0x00050048, 0x0000000d, 0x00000000, 0x00000023, 0x00000000,
  0x00050048, 0x0000000d, 0x00000001, 0x00000023, 0x00000008, 0x00050048, 0x0000000d, 0x00000002,
  0x00000023, 0x00000010, 0x00050048, 0x0000000d, 0x00000003, 0x00000023, 0x00000018, 0x00030047,
  0x0000000d, 0x00000002, 0x00030047, 0x00000016, 0x000014ec, 0x00030047, 0x0000001b, 0x000014ec,
  0x00040047, 0x00000025, 0x0000000b, 0x00000018, 0x00040047, 0x00000032, 0x0000000b, 0x0000001c,
  0x00040047, 0x0000004f, 0x0000000b, 0x00000019, 0x00020013, 0x00000002, 0x00030021, 0x00000003,
  0x00000002, 0x00030027, 0x00000006, 0x000014e5, 0x00030016, 0x00000007, 0x00000020, 0x0003001d,
  0x00000008, 0x00000007, 0x0003001e, 0x00000009, 0x00000008, 0x00040020, 0x00000006, 0x000014e5,
  0x00000009, 0x00040020, 0x0000000a, 0x00000007, 0x00000006, 0x00040015, 0x0000000c, 0x00000040,
  0x00000000, 0x0006001e, 0x0000000d, 0x0000000c, 0x0000000c, 0x0000000c, 0x0000000c, 0x00040020,
  0x0000000e, 0x00000009, 0x0000000d, 0x0004003b, 0x0000000e, 0x0000000f, 0x00000009, 0x00040015,
  0x00000010, 0x00000020, 0x00000001, 0x0004002b, 0x00000010, 0x00000011, 0x00000000, 0x00040020,
  0x00000012, 0x00000009, 0x0000000c, 0x0004002b, 0x00000010, 0x00000017, 0x00000001, 0x0004002b,
  0x00000010, 0x0000001c, 0x00000002, 0x00040015, 0x00000020, 0x00000020, 0x00000000, 0x00040020,
  0x00000021, 0x00000007, 0x00000020, 0x00040017, 0x00000023, 0x00000020, 0x00000003, 0x00040020,
  0x00000024, 0x00000001, 0x00000023, 0x0004003b, 0x00000024, 0x00000025, 0x00000001, 0x0004002b,
  0x00000020, 0x00000026, 0x00000000, 0x00040020, 0x00000027, 0x00000001, 0x00000020, 0x0004002b,
  0x00000020, 0x0000002a, 0x00000100, 0x0004002b, 0x00000010, 0x0000002d, 0x00000003, 0x0004003b,
  0x00000024, 0x00000032, 0x00000001, 0x00020014, 0x0000003c, 0x00040020, 0x00000042, 0x000014e5,
  0x00000007, 0x0004002b, 0x00000020, 0x0000004e, 0x00000001, 0x0006002c, 0x00000023, 0x0000004f,
  0x0000002a, 0x0000004e, 0x0000004e, 0x00050036, 0x00000002, 0x00000004, 0x00000000, 0x00000003,
  0x000200f8, 0x00000005, 0x0004003b, 0x0000000a, 0x0000000b, 0x00000007, 0x0004003b, 0x0000000a,
  0x00000016, 0x00000007, 0x0004003b, 0x0000000a, 0x0000001b, 0x00000007, 0x0004003b, 0x00000021,
  0x00000022, 0x00000007, 0x0004003b, 0x00000021, 0x0000002c, 0x00000007, 0x0004003b, 0x00000021,
  0x00000031, 0x00000007, 0x00050041, 0x00000012, 0x00000013, 0x0000000f, 0x00000011, 0x0004003d,
  0x0000000c, 0x00000014, 0x00000013, 0x00040078, 0x00000006, 0x00000015, 0x00000014, 0x0003003e,
  0x0000000b, 0x00000015, 0x00050041, 0x00000012, 0x00000018, 0x0000000f, 0x00000017, 0x0004003d,
  0x0000000c, 0x00000019, 0x00000018, 0x00040078, 0x00000006, 0x0000001a, 0x00000019, 0x0003003e,
  0x00000016, 0x0000001a, 0x00050041, 0x00000012, 0x0000001d, 0x0000000f, 0x0000001c, 0x0004003d,
  0x0000000c, 0x0000001e, 0x0000001d, 0x00040078, 0x00000006, 0x0000001f, 0x0000001e, 0x0003003e,
  0x0000001b, 0x0000001f, 0x00050041, 0x00000027, 0x00000028, 0x00000025, 0x00000026, 0x0004003d,
  0x00000020, 0x00000029, 0x00000028, 0x00050084, 0x00000020, 0x0000002b, 0x00000029, 0x0000002a,
  0x0003003e, 0x00000022, 0x0000002b, 0x00050041, 0x00000012, 0x0000002e, 0x0000000f, 0x0000002d,
  0x0004003d, 0x0000000c, 0x0000002f, 0x0000002e, 0x00040071, 0x00000020, 0x00000030, 0x0000002f,
  0x0003003e, 0x0000002c, 0x00000030, 0x00050041, 0x00000027, 0x00000033, 0x00000032, 0x00000026,
  0x0004003d, 0x00000020, 0x00000034, 0x00000033, 0x0003003e, 0x00000031, 0x00000034, 0x000200f9,
  0x00000035, 0x000200f8, 0x00000035, 0x000400f6, 0x00000037, 0x00000038, 0x00000000, 0x000200f9,
  0x00000039, 0x000200f8, 0x00000039, 0x0004003d, 0x00000020, 0x0000003a, 0x00000031, 0x0004003d,
  0x00000020, 0x0000003b, 0x0000002c, 0x000500b0, 0x0000003c, 0x0000003d, 0x0000003a, 0x0000003b,
  0x000400fa, 0x0000003d, 0x00000036, 0x00000037, 0x000200f8, 0x00000036, 0x0004003d, 0x00000006,
  0x0000003e, 0x0000001b, 0x0004003d, 0x00000020, 0x0000003f, 0x00000031, 0x0004003d, 0x00000006,
  0x00000040, 0x0000000b, 0x0004003d, 0x00000020, 0x00000041, 0x00000031, 0x00060041, 0x00000042,
  0x00000043, 0x00000040, 0x00000011, 0x00000041, 0x0006003d, 0x00000007, 0x00000044, 0x00000043,
  0x00000002, 0x00000004, 0x0004003d, 0x00000006, 0x00000045, 0x00000016, 0x0004003d, 0x00000020,
  0x00000046, 0x00000031, 0x00060041, 0x00000042, 0x00000047, 0x00000045, 0x00000011, 0x00000046,
  0x0006003d, 0x00000007, 0x00000048, 0x00000047, 0x00000002, 0x00000004, 0x00050081, 0x00000007,
  0x00000049, 0x00000044, 0x00000048, 0x00060041, 0x00000042, 0x0000004a, 0x0000003e, 0x00000011,
  0x0000003f, 0x0005003e, 0x0000004a, 0x00000049, 0x00000002, 0x00000004, 0x000200f9, 0x00000038,
  0x000200f8, 0x00000038, 0x0004003d, 0x00000020, 0x0000004b, 0x00000022, 0x0004003d, 0x00000020,
  0x0000004c, 0x00000031, 0x00050080, 0x00000020, 0x0000004d, 0x0000004c, 0x0000004b, 0x0003003e,
  0x00000031, 0x0000004d, 0x000200f9, 0x00000035, 0x000200f8, 0x00000037, 0x000100fd, 0x00010038,
};

/* The step kernel, compiled the same way from:
 *   layout(push_constant) uniform P { uint64_t s, d; uint n; int op; float c; } p;
 *   void main() { F32 s = F32(p.s), d = F32(p.d); uint stride = gl_NumWorkGroups.x * 256u;
 *     for (uint i = gl_GlobalInvocationID.x; i < p.n; i += stride) {
 *       precise float x = s.v[i], y;
 *       if (p.op == 0) y = x * p.c; else if (p.op == 1) y = x + p.c;
 *       else if (p.op == 2) y = clamp(x, 0.0, 1.0); else y = clamp(((x * 1.15) + -0.02) * 0.98, 0.0, 1.0);
 *       d.v[i] = y; } }
 * (spirv-opt --strip-debug): op 3 is fused_pointwise_1080p's whole chain, ops 0 to 2 its eager steps. */
static const uint32_t step_spv[] = {
  0x07230203, 0x00010500, 0x0008000b, 0x00000072, 0x00000000, 0x00020011, 0x00000001, 0x00020011,
  0x0000000b, 0x00020011, 0x000014e3, 0x0006000b, 0x00000001, 0x4c534c47, 0x6474732e, 0x3035342e,
  0x00000000, 0x0003000e, 0x000014e4, 0x00000001, 0x0008000f, 0x00000005, 0x00000004, 0x6e69616d,
  0x00000000, 0x00000011, 0x00000020, 0x00000028, 0x00060010, 0x00000004, 0x00000011, 0x00000100,
  0x00000001, 0x00000001, 0x00040047, 0x00000008, 0x00000006, 0x00000004, 0x00050048, 0x00000009,
  0x00000000, 0x00000023, 0x00000000, 0x00030047, 0x00000009, 0x00000002, 0x00030047, 0x0000000b,
  0x000014ec, 0x00050048, 0x0000000f, 0x00000000, 0x00000023, 0x00000000, 0x00050048, 0x0000000f,
  0x00000001, 0x00000023, 0x00000008, 0x00050048, 0x0000000f, 0x00000002, 0x00000023, 0x00000010,
  0x00050048, 0x0000000f, 0x00000003, 0x00000023, 0x00000014, 0x00050048, 0x0000000f, 0x00000004,
  0x00000023, 0x00000018, 0x00030047, 0x0000000f, 0x00000002, 0x00030047, 0x00000017, 0x000014ec,
  0x00040047, 0x00000020, 0x0000000b, 0x00000018, 0x00040047, 0x00000028, 0x0000000b, 0x0000001c,
  0x00030047, 0x0000004b, 0x0000002a, 0x00030047, 0x00000055, 0x0000002a, 0x00030047, 0x00000063,
  0x0000002a, 0x00030047, 0x00000065, 0x0000002a, 0x00030047, 0x00000067, 0x0000002a, 0x00040047,
  0x00000071, 0x0000000b, 0x00000019, 0x00020013, 0x00000002, 0x00030021, 0x00000003, 0x00000002,
  0x00030027, 0x00000006, 0x000014e5, 0x00030016, 0x00000007, 0x00000020, 0x0003001d, 0x00000008,
  0x00000007, 0x0003001e, 0x00000009, 0x00000008, 0x00040020, 0x00000006, 0x000014e5, 0x00000009,
  0x00040020, 0x0000000a, 0x00000007, 0x00000006, 0x00040015, 0x0000000c, 0x00000040, 0x00000000,
  0x00040015, 0x0000000d, 0x00000020, 0x00000000, 0x00040015, 0x0000000e, 0x00000020, 0x00000001,
  0x0007001e, 0x0000000f, 0x0000000c, 0x0000000c, 0x0000000d, 0x0000000e, 0x00000007, 0x00040020,
  0x00000010, 0x00000009, 0x0000000f, 0x0004003b, 0x00000010, 0x00000011, 0x00000009, 0x0004002b,
  0x0000000e, 0x00000012, 0x00000000, 0x00040020, 0x00000013, 0x00000009, 0x0000000c, 0x0004002b,
  0x0000000e, 0x00000018, 0x00000001, 0x00040020, 0x0000001c, 0x00000007, 0x0000000d, 0x00040017,
  0x0000001e, 0x0000000d, 0x00000003, 0x00040020, 0x0000001f, 0x00000001, 0x0000001e, 0x0004003b,
  0x0000001f, 0x00000020, 0x00000001, 0x0004002b, 0x0000000d, 0x00000021, 0x00000000, 0x00040020,
  0x00000022, 0x00000001, 0x0000000d, 0x0004002b, 0x0000000d, 0x00000025, 0x00000100, 0x0004003b,
  0x0000001f, 0x00000028, 0x00000001, 0x0004002b, 0x0000000e, 0x00000031, 0x00000002, 0x00040020,
  0x00000032, 0x00000009, 0x0000000d, 0x00020014, 0x00000035, 0x00040020, 0x00000037, 0x00000007,
  0x00000007, 0x00040020, 0x0000003b, 0x000014e5, 0x00000007, 0x0004002b, 0x0000000e, 0x0000003e,
  0x00000003, 0x00040020, 0x0000003f, 0x00000009, 0x0000000e, 0x0004002b, 0x0000000e, 0x00000047,
  0x00000004, 0x00040020, 0x00000048, 0x00000009, 0x00000007, 0x0004002b, 0x00000007, 0x0000005d,
  0x00000000, 0x0004002b, 0x00000007, 0x0000005e, 0x3f800000, 0x0004002b, 0x00000007, 0x00000062,
  0x3f933333, 0x0004002b, 0x00000007, 0x00000064, 0xbca3d70a, 0x0004002b, 0x00000007, 0x00000066,
  0x3f7ae148, 0x0004002b, 0x0000000d, 0x00000070, 0x00000001, 0x0006002c, 0x0000001e, 0x00000071,
  0x00000025, 0x00000070, 0x00000070, 0x00050036, 0x00000002, 0x00000004, 0x00000000, 0x00000003,
  0x000200f8, 0x00000005, 0x0004003b, 0x0000000a, 0x0000000b, 0x00000007, 0x0004003b, 0x0000000a,
  0x00000017, 0x00000007, 0x0004003b, 0x0000001c, 0x0000001d, 0x00000007, 0x0004003b, 0x0000001c,
  0x00000027, 0x00000007, 0x0004003b, 0x00000037, 0x00000038, 0x00000007, 0x0004003b, 0x00000037,
  0x00000045, 0x00000007, 0x00050041, 0x00000013, 0x00000014, 0x00000011, 0x00000012, 0x0004003d,
  0x0000000c, 0x00000015, 0x00000014, 0x00040078, 0x00000006, 0x00000016, 0x00000015, 0x0003003e,
  0x0000000b, 0x00000016, 0x00050041, 0x00000013, 0x00000019, 0x00000011, 0x00000018, 0x0004003d,
  0x0000000c, 0x0000001a, 0x00000019, 0x00040078, 0x00000006, 0x0000001b, 0x0000001a, 0x0003003e,
  0x00000017, 0x0000001b, 0x00050041, 0x00000022, 0x00000023, 0x00000020, 0x00000021, 0x0004003d,
  0x0000000d, 0x00000024, 0x00000023, 0x00050084, 0x0000000d, 0x00000026, 0x00000024, 0x00000025,
  0x0003003e, 0x0000001d, 0x00000026, 0x00050041, 0x00000022, 0x00000029, 0x00000028, 0x00000021,
  0x0004003d, 0x0000000d, 0x0000002a, 0x00000029, 0x0003003e, 0x00000027, 0x0000002a, 0x000200f9,
  0x0000002b, 0x000200f8, 0x0000002b, 0x000400f6, 0x0000002d, 0x0000002e, 0x00000000, 0x000200f9,
  0x0000002f, 0x000200f8, 0x0000002f, 0x0004003d, 0x0000000d, 0x00000030, 0x00000027, 0x00050041,
  0x00000032, 0x00000033, 0x00000011, 0x00000031, 0x0004003d, 0x0000000d, 0x00000034, 0x00000033,
  0x000500b0, 0x00000035, 0x00000036, 0x00000030, 0x00000034, 0x000400fa, 0x00000036, 0x0000002c,
  0x0000002d, 0x000200f8, 0x0000002c, 0x0004003d, 0x00000006, 0x00000039, 0x0000000b, 0x0004003d,
  0x0000000d, 0x0000003a, 0x00000027, 0x00060041, 0x0000003b, 0x0000003c, 0x00000039, 0x00000012,
  0x0000003a, 0x0006003d, 0x00000007, 0x0000003d, 0x0000003c, 0x00000002, 0x00000004, 0x0003003e,
  0x00000038, 0x0000003d, 0x00050041, 0x0000003f, 0x00000040, 0x00000011, 0x0000003e, 0x0004003d,
  0x0000000e, 0x00000041, 0x00000040, 0x000500aa, 0x00000035, 0x00000042, 0x00000041, 0x00000012,
  0x000300f7, 0x00000044, 0x00000000, 0x000400fa, 0x00000042, 0x00000043, 0x0000004c, 0x000200f8,
  0x00000043, 0x0004003d, 0x00000007, 0x00000046, 0x00000038, 0x00050041, 0x00000048, 0x00000049,
  0x00000011, 0x00000047, 0x0004003d, 0x00000007, 0x0000004a, 0x00000049, 0x00050085, 0x00000007,
  0x0000004b, 0x00000046, 0x0000004a, 0x0003003e, 0x00000045, 0x0000004b, 0x000200f9, 0x00000044,
  0x000200f8, 0x0000004c, 0x00050041, 0x0000003f, 0x0000004d, 0x00000011, 0x0000003e, 0x0004003d,
  0x0000000e, 0x0000004e, 0x0000004d, 0x000500aa, 0x00000035, 0x0000004f, 0x0000004e, 0x00000018,
  0x000300f7, 0x00000051, 0x00000000, 0x000400fa, 0x0000004f, 0x00000050, 0x00000056, 0x000200f8,
  0x00000050, 0x0004003d, 0x00000007, 0x00000052, 0x00000038, 0x00050041, 0x00000048, 0x00000053,
  0x00000011, 0x00000047, 0x0004003d, 0x00000007, 0x00000054, 0x00000053, 0x00050081, 0x00000007,
  0x00000055, 0x00000052, 0x00000054, 0x0003003e, 0x00000045, 0x00000055, 0x000200f9, 0x00000051,
  0x000200f8, 0x00000056, 0x00050041, 0x0000003f, 0x00000057, 0x00000011, 0x0000003e, 0x0004003d,
  0x0000000e, 0x00000058, 0x00000057, 0x000500aa, 0x00000035, 0x00000059, 0x00000058, 0x00000031,
  0x000300f7, 0x0000005b, 0x00000000, 0x000400fa, 0x00000059, 0x0000005a, 0x00000060, 0x000200f8,
  0x0000005a, 0x0004003d, 0x00000007, 0x0000005c, 0x00000038, 0x0008000c, 0x00000007, 0x0000005f,
  0x00000001, 0x0000002b, 0x0000005c, 0x0000005d, 0x0000005e, 0x0003003e, 0x00000045, 0x0000005f,
  0x000200f9, 0x0000005b, 0x000200f8, 0x00000060, 0x0004003d, 0x00000007, 0x00000061, 0x00000038,
  0x00050085, 0x00000007, 0x00000063, 0x00000061, 0x00000062, 0x00050081, 0x00000007, 0x00000065,
  0x00000063, 0x00000064, 0x00050085, 0x00000007, 0x00000067, 0x00000065, 0x00000066, 0x0008000c,
  0x00000007, 0x00000068, 0x00000001, 0x0000002b, 0x00000067, 0x0000005d, 0x0000005e, 0x0003003e,
  0x00000045, 0x00000068, 0x000200f9, 0x0000005b, 0x000200f8, 0x0000005b, 0x000200f9, 0x00000051,
  0x000200f8, 0x00000051, 0x000200f9, 0x00000044, 0x000200f8, 0x00000044, 0x0004003d, 0x00000006,
  0x00000069, 0x00000017, 0x0004003d, 0x0000000d, 0x0000006a, 0x00000027, 0x0004003d, 0x00000007,
  0x0000006b, 0x00000045, 0x00060041, 0x0000003b, 0x0000006c, 0x00000069, 0x00000012, 0x0000006a,
  0x0005003e, 0x0000006c, 0x0000006b, 0x00000002, 0x00000004, 0x000200f9, 0x0000002e, 0x000200f8,
  0x0000002e, 0x0004003d, 0x0000000d, 0x0000006d, 0x0000001d, 0x0004003d, 0x0000000d, 0x0000006e,
  0x00000027, 0x00050080, 0x0000000d, 0x0000006f, 0x0000006e, 0x0000006d, 0x0003003e, 0x00000027,
  0x0000006f, 0x000200f9, 0x0000002b, 0x000200f8, 0x0000002d, 0x000100fd, 0x00010038,
};

static vk_inst_api vi;
static vk_dev_api vd;
static void(VKAPI_PTR *CmdFillBuffer)(VkCommandBuffer, VkBuffer, VkDeviceSize, VkDeviceSize, uint32_t);
static VkDevice dev;
static VkPhysicalDeviceMemoryProperties mp;

static void check(VkResult r, const char *what) {
  if (r != VK_SUCCESS) {
    fprintf(stderr, "vulkan_floor: %s failed: VkResult %d\n", what, r);
    exit(1);
  }
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }
static double median(double *v, int n) { qsort(v, (size_t)n, sizeof *v, cmp); return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2; }

typedef struct { VkBuffer buf; VkDeviceMemory mem; VkDeviceAddress addr; void *map; } buffer;

static buffer make_buffer(VkDeviceSize bytes, int host) {
  buffer b = {0};
  VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = bytes,
                            .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                     VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT};
  check(vd.vkCreateBuffer(dev, &bci, NULL, &b.buf), "vkCreateBuffer");
  VkMemoryRequirements req;
  vd.vkGetBufferMemoryRequirements(dev, b.buf, &req);
  VkMemoryPropertyFlags want = host ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
                                    : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
  uint32_t t = 0;
  while (t < mp.memoryTypeCount && (!(req.memoryTypeBits & (1u << t)) || (mp.memoryTypes[t].propertyFlags & want) != want)) t++;
  if (t == mp.memoryTypeCount) { fprintf(stderr, "vulkan_floor: no suitable memory type\n"); exit(1); }
  VkMemoryAllocateFlagsInfo fl = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO, .flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT};
  VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .pNext = &fl, .allocationSize = req.size, .memoryTypeIndex = t};
  check(vd.vkAllocateMemory(dev, &mai, NULL, &b.mem), "vkAllocateMemory");
  check(vd.vkBindBufferMemory(dev, b.buf, b.mem, 0), "vkBindBufferMemory");
  if (host) check(vd.vkMapMemory(dev, b.mem, 0, VK_WHOLE_SIZE, 0, &b.map), "vkMapMemory");
  VkBufferDeviceAddressInfo ai = {.sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO, .buffer = b.buf};
  b.addr = vd.vkGetBufferDeviceAddress(dev, &ai);
  return b;
}

static VkQueue queue;
static int spin; /* 0 on a CPU implementation, as in the driver */
static VkSemaphore sem;
static uint64_t sem_value;

static void submit_wait(VkCommandBuffer cb) {
  uint64_t v = ++sem_value;
  VkTimelineSemaphoreSubmitInfo ti = {.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO, .signalSemaphoreValueCount = 1,
                                      .pSignalSemaphoreValues = &v};
  VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .pNext = &ti, .commandBufferCount = 1, .pCommandBuffers = &cb,
                     .signalSemaphoreCount = 1, .pSignalSemaphores = &sem};
  check(vd.vkQueueSubmit(queue, 1, &si, NULL), "vkQueueSubmit");
  /* The wait the driver makes (queue.c vkq_wait): poll the counter, pausing between reads,
   * for up to 200 us, then block: NVIDIA's blocking wait returns well after the work is done,
   * so a floor that only blocked would flatter the driver (bench/history/sessions-1-10.md,
   * session 7). */
  double until = now_ms() + 0.2;
  for (unsigned i = 0; spin; i++) {
    uint64_t done = 0;
    check(vd.vkGetSemaphoreCounterValue(dev, sem, &done), "vkGetSemaphoreCounterValue");
    if (done >= v) return;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
    if (i % 16 == 15 && now_ms() > until) break;
  }
  VkSemaphoreWaitInfo wi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO, .semaphoreCount = 1, .pSemaphores = &sem, .pValues = &v};
  check(vd.vkWaitSemaphores(dev, &wi, UINT64_MAX), "vkWaitSemaphores");
}

/* Median ms of reps submissions (after one dropped warm-up) of an already recorded cb, each waited for. */
static double resubmit(VkCommandBuffer cb, double *t, int reps) {
  for (int s = 0; s < reps + 1; s++) {
    double t0 = now_ms();
    submit_wait(cb);
    if (s) t[s - 1] = now_ms() - t0;
  }
  return median(t, reps);
}

static void begin(VkCommandBuffer cb) {
  VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  check(vd.vkBeginCommandBuffer(cb, &bi), "vkBeginCommandBuffer");
}

static void barrier(VkCommandBuffer cb) {
  VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                        .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                        .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                                         VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_HOST_READ_BIT};
  VkPipelineStageFlags s = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
  vd.vkCmdPipelineBarrier(cb, s, s | VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
}

static VkPipeline pipe;
static VkPipelineLayout layout;

static void add(VkCommandBuffer cb, const buffer *a, const buffer *b, const buffer *c, uint64_t n) {
  uint64_t pc[4] = {a->addr, b->addr, c->addr, n};
  uint64_t groups = (n + 255) / 256;
  vd.vkCmdPushConstants(cb, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pc, pc);
  vd.vkCmdDispatch(cb, (uint32_t)(groups < 65535 ? groups : 65535), 1, 1);
}

static VkPipeline step_pipe;

static void step(VkCommandBuffer cb, const buffer *src, const buffer *dst, uint64_t n, int op, float c) {
  struct { uint64_t s, d; uint32_t n; int32_t op; float c; } pc = {src->addr, dst->addr, (uint32_t)n, op, c};
  uint64_t groups = (n + 255) / 256;
  vd.vkCmdPushConstants(cb, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pc, &pc);
  vd.vkCmdDispatch(cb, (uint32_t)(groups < 65535 ? groups : 65535), 1, 1);
}

/* Copies the last 64 floats of c out and checks them against want. */
static void expect(VkCommandBuffer cb, const buffer *c, uint64_t n, const buffer *host, float want, const char *what) {
  uint64_t k = n < 64 ? n : 64;
  begin(cb);
  VkBufferCopy reg = {(n - k) * 4, 0, k * 4};
  vd.vkCmdCopyBuffer(cb, c->buf, host->buf, 1, &reg);
  barrier(cb);
  check(vd.vkEndCommandBuffer(cb), "vkEndCommandBuffer");
  submit_wait(cb);
  for (uint64_t i = 0; i < k; i++)
    if (((float *)host->map)[i] != want) {
      fprintf(stderr, "vulkan_floor: %s: element %llu is %g, expected %g\n", what, (unsigned long long)(n - k + i),
              ((float *)host->map)[i], want);
      exit(1);
    }
}

int main(int argc, char **argv) {
  uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 268435456ull;
  int reps = argc > 2 ? atoi(argv[2]) : 20;
  if (n < 64 || n > 0xffffffffull || reps < 1 || reps > 10000) { fprintf(stderr, "usage: vulkan_floor [elements 64..2^32-1] [samples]\n"); return 2; }
  void *lib = dlopen("libvulkan.so.1", RTLD_NOW);
  if (!lib) { fprintf(stderr, "vulkan_floor: no Vulkan loader: %s\n", dlerror()); return 2; }
  *(void **)&vi.vkGetInstanceProcAddr = dlsym(lib, "vkGetInstanceProcAddr");
#define GI(name, ret, args) vi.name = (ret(VKAPI_PTR *) args)vi.vkGetInstanceProcAddr(inst, #name);
  VkInstance inst = NULL;
  PT_VK_GLOBAL(GI)
  VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .pApplicationName = "vulkan_floor", .apiVersion = VK_MAKE_API_VERSION(0, 1, 2, 0)};
  VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
  if (vi.vkCreateInstance(&ici, NULL, &inst) != VK_SUCCESS) { fprintf(stderr, "vulkan_floor: vkCreateInstance failed\n"); return 2; }
  PT_VK_INSTANCE(GI)
  uint32_t nd = 1;
  VkPhysicalDevice pd;
  VkResult r = vi.vkEnumeratePhysicalDevices(inst, &nd, &pd);
  if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || nd == 0) { fprintf(stderr, "vulkan_floor: no Vulkan device\n"); return 2; }
  VkPhysicalDeviceProperties2 pr = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  vi.vkGetPhysicalDeviceProperties2(pd, &pr);
  spin = pr.properties.deviceType != VK_PHYSICAL_DEVICE_TYPE_CPU;
  VkPhysicalDeviceMemoryProperties2 mp2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2};
  vi.vkGetPhysicalDeviceMemoryProperties2(pd, &mp2);
  mp = mp2.memoryProperties;
  uint32_t nf = 16, fam = 0;
  VkQueueFamilyProperties fp[16];
  vi.vkGetPhysicalDeviceQueueFamilyProperties(pd, &nf, fp);
  while (fam < nf && !(fp[fam].queueFlags & VK_QUEUE_COMPUTE_BIT)) fam++;
  for (uint32_t i = 0; i < nf; i++) /* a dedicated compute family, as the driver picks */
    if ((fp[i].queueFlags & VK_QUEUE_COMPUTE_BIT) && !(fp[i].queueFlags & VK_QUEUE_GRAPHICS_BIT)) { fam = i; break; }
  if (fam == nf) { fprintf(stderr, "vulkan_floor: no compute queue\n"); return 2; }

  VkPhysicalDeviceVulkan12Features f12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, .bufferDeviceAddress = 1, .timelineSemaphore = 1};
  VkPhysicalDeviceFeatures2 f = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &f12};
  f.features.shaderInt64 = 1;
  float prio = 1;
  VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueFamilyIndex = fam, .queueCount = 1, .pQueuePriorities = &prio};
  VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .pNext = &f, .queueCreateInfoCount = 1, .pQueueCreateInfos = &qci};
  check(vi.vkCreateDevice(pd, &dci, NULL, &dev), "vkCreateDevice");
#define GD(name, ret, args) vd.name = (ret(VKAPI_PTR *) args)vi.vkGetDeviceProcAddr(dev, #name);
  PT_VK_DEVICE(GD)
  *(PFN_vkVoidFunction *)&CmdFillBuffer = vi.vkGetDeviceProcAddr(dev, "vkCmdFillBuffer");
  vd.vkGetDeviceQueue(dev, fam, 0, &queue);
  VkSemaphoreTypeCreateInfo tci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO, .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE};
  VkSemaphoreCreateInfo sci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &tci};
  check(vd.vkCreateSemaphore(dev, &sci, NULL, &sem), "vkCreateSemaphore");
  VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, .queueFamilyIndex = fam};
  VkCommandPool pool;
  check(vd.vkCreateCommandPool(dev, &pci, NULL, &pool), "vkCreateCommandPool");
  VkCommandBuffer cb[2];
  VkCommandBufferAllocateInfo cai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = pool, .commandBufferCount = 2};
  check(vd.vkAllocateCommandBuffers(dev, &cai, cb), "vkAllocateCommandBuffers");

  VkShaderModuleCreateInfo smi = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = sizeof add_spv, .pCode = add_spv};
  VkShaderModule mod;
  check(vd.vkCreateShaderModule(dev, &smi, NULL, &mod), "vkCreateShaderModule");
  VkPushConstantRange pcr = {VK_SHADER_STAGE_COMPUTE_BIT, 0, 32};
  VkPipelineLayoutCreateInfo lci = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .pushConstantRangeCount = 1, .pPushConstantRanges = &pcr};
  check(vd.vkCreatePipelineLayout(dev, &lci, NULL, &layout), "vkCreatePipelineLayout");
  VkComputePipelineCreateInfo cpi = {.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO, .layout = layout};
  cpi.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  cpi.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  cpi.stage.module = mod;
  cpi.stage.pName = "main";
  check(vd.vkCreateComputePipelines(dev, NULL, 1, &cpi, NULL, &pipe), "vkCreateComputePipelines");
  smi.codeSize = sizeof step_spv;
  smi.pCode = step_spv;
  check(vd.vkCreateShaderModule(dev, &smi, NULL, &cpi.stage.module), "vkCreateShaderModule");
  check(vd.vkCreateComputePipelines(dev, NULL, 1, &cpi, NULL, &step_pipe), "vkCreateComputePipelines");

  buffer sa = make_buffer(256, 0), sb = make_buffer(256, 0), sc = make_buffer(256, 0), host = make_buffer(256, 1);
  buffer la = make_buffer(n * 4, 0), lb = make_buffer(n * 4, 0), lc = make_buffer(n * 4, 0);
  begin(cb[0]);
  CmdFillBuffer(cb[0], sa.buf, 0, 256, 0x3f800000u); /* 1.0f */
  CmdFillBuffer(cb[0], sb.buf, 0, 256, 0x40000000u); /* 2.0f */
  CmdFillBuffer(cb[0], la.buf, 0, n * 4, 0x3f800000u);
  CmdFillBuffer(cb[0], lb.buf, 0, n * 4, 0x40000000u);
  barrier(cb[0]);
  check(vd.vkEndCommandBuffer(cb[0]), "vkEndCommandBuffer");
  submit_wait(cb[0]);
  printf("# device: %s (Vulkan %u.%u), add over %llu floats, %d samples\n", pr.properties.deviceName,
         VK_API_VERSION_MAJOR(pr.properties.apiVersion), VK_API_VERSION_MINOR(pr.properties.apiVersion), (unsigned long long)n, reps);

  double *t = calloc((size_t)reps, sizeof *t);
  for (int s = 0; s < reps + 1; s++) { /* the first sample warms up and is dropped */
    double t0 = now_ms();
    begin(cb[0]);
    vd.vkCmdBindPipeline(cb[0], VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
    for (int i = 0; i < 256; i++) { add(cb[0], &sa, &sb, &sc, 64); barrier(cb[0]); }
    check(vd.vkEndCommandBuffer(cb[0]), "vkEndCommandBuffer");
    submit_wait(cb[0]);
    if (s) t[s - 1] = now_ms() - t0;
  }
  expect(cb[1], &sc, 64, &host, 3.0f, "dispatch_overhead_small");
  printf("dispatch_overhead_small %.4f ms\n", median(t, reps));

  begin(cb[0]);
  vd.vkCmdBindPipeline(cb[0], VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
  for (int i = 0; i < 256; i++) { add(cb[0], &sa, &sb, &sc, 64); barrier(cb[0]); }
  check(vd.vkEndCommandBuffer(cb[0]), "vkEndCommandBuffer");
  printf("replay_256 %.4f ms\n", resubmit(cb[0], t, reps));

  /* One fused kernel launch + wait, recorded each time as our shim records it: the floor of
   * deferred_alias_copy_materialize (262144 elements, 3 buffers). */
  uint64_t fused_n = n < 262144 ? n : 262144;
  for (int s = 0; s < reps + 1; s++) {
    double t0 = now_ms();
    begin(cb[0]);
    vd.vkCmdBindPipeline(cb[0], VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
    add(cb[0], &la, &lb, &lc, fused_n);
    barrier(cb[0]);
    check(vd.vkEndCommandBuffer(cb[0]), "vkEndCommandBuffer");
    submit_wait(cb[0]);
    if (s) t[s - 1] = now_ms() - t0;
  }
  printf("deferred_alias_copy_materialize %.4f ms\n", median(t, reps));

  /* The least one submission and wait can cost here: the same add pre-recorded with no
   * barrier at all (not enough ordering for real work), re-submitted and waited for. */
  begin(cb[0]);
  vd.vkCmdBindPipeline(cb[0], VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
  add(cb[0], &la, &lb, &lc, fused_n);
  check(vd.vkEndCommandBuffer(cb[0]), "vkEndCommandBuffer");
  printf("submit_wait_least %.4f ms\n", resubmit(cb[0], t, reps));

  /* fused_pointwise_1080p as one dispatch, then as its 4 eager steps, recorded each time. */
  uint64_t np = 3 * 1080 * 1920;
  buffer px = make_buffer(np * 4, 0), pt[4];
  for (int k = 0; k < 4; k++) pt[k] = make_buffer(np * 4, 0);
  begin(cb[0]);
  CmdFillBuffer(cb[0], px.buf, 0, np * 4, 0x3f000000u); /* 0.5f */
  barrier(cb[0]);
  check(vd.vkEndCommandBuffer(cb[0]), "vkEndCommandBuffer");
  submit_wait(cb[0]);
  const char *names[2] = {"fused_pointwise_1080p", "fused_pointwise_1080p_eager"};
  for (int eager = 0; eager < 2; eager++) {
    for (int s = 0; s < reps + 1; s++) {
      double t0 = now_ms();
      begin(cb[0]);
      vd.vkCmdBindPipeline(cb[0], VK_PIPELINE_BIND_POINT_COMPUTE, step_pipe);
      if (eager)
        for (int k = 0; k < 4; k++) {
          step(cb[0], k ? &pt[k - 1] : &px, &pt[k], np, k == 3 ? 2 : k == 1 ? 1 : 0, k == 0 ? 1.15f : k == 1 ? -0.02f : 0.98f);
          barrier(cb[0]);
        }
      else {
        step(cb[0], &px, &pt[3], np, 3, 0);
        barrier(cb[0]);
      }
      check(vd.vkEndCommandBuffer(cb[0]), "vkEndCommandBuffer");
      submit_wait(cb[0]);
      if (s) t[s - 1] = now_ms() - t0;
    }
    expect(cb[1], &pt[3], np, &host, ((0.5f * 1.15f) + -0.02f) * 0.98f, names[eager]);
    printf("%s %.4f ms\n", names[eager], median(t, reps));
  }

  begin(cb[0]);
  vd.vkCmdBindPipeline(cb[0], VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
  add(cb[0], &la, &lb, &lc, n);
  barrier(cb[0]);
  check(vd.vkEndCommandBuffer(cb[0]), "vkEndCommandBuffer");
  double ms = resubmit(cb[0], t, reps);
  expect(cb[1], &lc, n, &host, 3.0f, "add");
  printf("add_%llu %.4f ms\nadd_gbps %.2f GB/s\n", (unsigned long long)n, ms, 12.0 * (double)n / (ms * 1e6));

  begin(cb[0]);
  VkBufferCopy reg = {0, 0, n * 4};
  vd.vkCmdCopyBuffer(cb[0], la.buf, lc.buf, 1, &reg);
  barrier(cb[0]);
  check(vd.vkEndCommandBuffer(cb[0]), "vkEndCommandBuffer");
  ms = resubmit(cb[0], t, reps);
  expect(cb[1], &lc, n, &host, 1.0f, "copy");
  printf("copy_%llu %.4f ms\ncopy_gbps %.2f GB/s\n", (unsigned long long)(n * 4), ms, 8.0 * (double)n / (ms * 1e6));
  vd.vkDeviceWaitIdle(dev);
  free(t);
  enum { Q = 10000 };
  uint64_t seen = 0;
  double q0 = now_ms();
  for (int i = 0; i < Q; i++) check(vd.vkGetSemaphoreCounterValue(dev, sem, &seen), "vkGetSemaphoreCounterValue");
  printf("semaphore_query_ns %.1f ns\n", (now_ms() - q0) * 1e6 / Q);
  return 0; /* the process exit releases the device */
}
