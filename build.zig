//! build.zig: the polytensor shim (one shared library) for the host, cross checks, smoke test.
//!
//! `zig build` compiles every .c file under native/src/core and under each enabled
//! backend's native/src/backends/<name>/ (globbed at configure time, so new files are
//! picked up) into libpolytensor, installed into native/zig-out/lib unless -p says
//! otherwise. The backends table is generated into the build cache: every known backend is
//! a row; one that is not enabled, or has no code yet, reports why it is unavailable.
//!   -Dbackends=cpu,cuda   which backends to compile (default all five: each opens its driver
//!                         at run time and reports why it has no device where there is none);
//!                         hip also compiles cuda's shared driver files (cuda_shared below)
//!   zig build cross       the shim with every backend for every published platform, baseline CPU, into
//!                         native/zig-out/cross/<triple>/: x86_64-linux-gnu, aarch64-linux-gnu,
//!                         aarch64-macos, x86_64-macos, x86_64-windows-gnu (scripts/pack.sh)
//!   zig build smoke       native/test/smoke.c against the host library
//!   zig build ring-test   native/test/ring.c: the launch ring under ThreadSanitizer
const std = @import("std");
const builtin = @import("builtin");

comptime {
    const v = builtin.zig_version;
    if (v.major != 0 or v.minor != 15)
        @compileError("polytensor's build.zig needs Zig 0.15.x; this is Zig " ++ builtin.zig_version_string ++
            " (run it with `python3 -m ziglang build`, or install Zig 0.15.2)");
}

/// Every backend the project knows, in table order. Each is always a row.
const known_backends = [_][]const u8{ "cpu", "cuda", "vulkan", "metal", "hip" };

const c_flags = [_][]const u8{ "-std=c11", "-Wall", "-Wextra", "-Werror", "-fvisibility=hidden" };

/// HIP runs the CUDA driver: these files of native/src/backends/cuda are compiled a second
/// time into the hip backend, and the whole hip backend with -DPT_VENDOR_HIP, under which
/// backends/hip/vendor.h takes HIP's column of cuda/lib.h's rows (cuda/cuda.h says how).
/// cuda/lib.c and cuda/cuda.c are CUDA's alone: its loader and what only CUDA does.
const cuda_shared = [_][]const u8{ "blas.c", "device.c", "graph.c", "launch.c", "program.c", "staging.c", "stream.c" };
const hip_flags = c_flags ++ [_][]const u8{"-DPT_VENDOR_HIP"};

/// What `zig build cross` compiles when -Dbackends is not given: every backend.
const cross_backends = "cpu,cuda,vulkan,metal,hip";

/// The npm platform packages' targets. x86_64-linux-gnu is here too: the host build is
/// tuned to this machine's CPU (-mcpu=native), a published one must run on any x86-64.
const cross_targets = [_][]const u8{ "x86_64-linux-gnu", "aarch64-linux-gnu", "aarch64-macos", "x86_64-macos", "x86_64-windows-gnu" };

pub fn build(b: *std.Build) void {
    // The library's home is native/zig-out; an explicit -p still wins.
    const default_prefix = b.build_root.join(b.allocator, &.{"zig-out"}) catch @panic("OOM");
    if (b.dest_dir == null and std.mem.eql(u8, b.install_prefix, default_prefix))
        b.resolveInstallPrefix(b.pathFromRoot("native/zig-out"), .{});

    const target = b.standardTargetOptions(.{});
    const optimize = b.option(std.builtin.OptimizeMode, "optimize", "Optimization mode (default ReleaseFast)") orelse .ReleaseFast;
    const chosen = b.option([]const u8, "backends", "Comma-separated backends to compile (default all): cpu,cuda,vulkan,metal,hip");
    const enabled = parseBackends(chosen orelse cross_backends);
    const table = generateTable(b, enabled);
    // The published libraries carry every backend (each opens its driver at run time, so
    // none needs an SDK); -Dbackends narrows them too, e.g. while one does not compile yet.
    const cross_enabled = parseBackends(chosen orelse cross_backends);
    const cross_table = generateTable(b, cross_enabled);

    const lib = addShim(b, b.resolveTargetQuery(target.query), optimize, enabled, table, null);
    b.installArtifact(lib);

    const cross = b.step("cross", "Compile the shim for linux x64/arm64 (glibc), macOS arm64/x64 and Windows x64");
    for (cross_targets) |triple| {
        const query = std.Target.Query.parse(.{ .arch_os_abi = triple }) catch @panic("bad cross triple");
        const cl = addShim(b, b.resolveTargetQuery(query), optimize, cross_enabled, cross_table, true); // stripped: these ship
        const inst = b.addInstallArtifact(cl, .{
            .dest_dir = .{ .override = .{ .custom = b.fmt("cross/{s}", .{triple}) } },
            .implib_dir = .disabled,
            .pdb_dir = .disabled,
        });
        cross.dependOn(&inst.step);
    }

    const smoke_mod = b.createModule(.{ .target = target, .optimize = .Debug, .link_libc = true });
    smoke_mod.addCSourceFile(.{ .file = b.path("native/test/smoke.c"), .flags = &.{ "-std=c11", "-Wall", "-Wextra", "-Werror" } });
    smoke_mod.addIncludePath(b.path("native/include"));
    smoke_mod.linkLibrary(lib);
    const smoke_exe = b.addExecutable(.{ .name = "smoke", .root_module = smoke_mod });
    const run_smoke = b.addRunArtifact(smoke_exe);
    run_smoke.expectExitCode(0);
    const smoke = b.step("smoke", "Build and run the native smoke test");
    smoke.dependOn(&run_smoke.step);

    // zig build ring-test: the launch ring (native/src/core/ring.c) under ThreadSanitizer.
    const ring_mod = b.createModule(.{ .target = target, .optimize = .Debug, .link_libc = true, .sanitize_thread = true });
    ring_mod.addCSourceFiles(.{ .files = &.{ "native/test/ring.c", "native/src/core/ring.c" }, .flags = &.{ "-std=c11", "-Wall", "-Wextra", "-Werror" } });
    ring_mod.addIncludePath(b.path("native/src/core"));
    ring_mod.addIncludePath(b.path("native/include"));
    const run_ring = b.addRunArtifact(b.addExecutable(.{ .name = "ring-test", .root_module = ring_mod }));
    run_ring.expectExitCode(0);
    b.step("ring-test", "Run the launch ring's test under ThreadSanitizer").dependOn(&run_ring.step);

    // zig build floor: bench/floor/cuda_floor.c, the C floor of the GPU benchmarks, for
    // x86_64-linux-gnu (baseline CPU; libc and libdl only, no CUDA SDK) into native/zig-out/bin.
    const floor_query = std.Target.Query.parse(.{ .arch_os_abi = "x86_64-linux-gnu" }) catch @panic("bad floor triple");
    const floor_mod = b.createModule(.{ .target = b.resolveTargetQuery(floor_query), .optimize = .ReleaseFast, .link_libc = true });
    floor_mod.addCSourceFile(.{ .file = b.path("bench/floor/cuda_floor.c"), .flags = &.{ "-std=c11", "-Wall", "-Wextra", "-Werror" } });
    floor_mod.linkSystemLibrary("dl", .{});
    const floor_exe = b.addExecutable(.{ .name = "cuda_floor", .root_module = floor_mod });
    const floor = b.step("floor", "Build the C floor of the GPU benchmarks (bench/floor/cuda_floor.c) into native/zig-out/bin");
    floor.dependOn(&b.addInstallArtifact(floor_exe, .{}).step);
    // bench/floor/vulkan_floor.c beside it: the Vulkan loader is dlopened, the kernel is embedded SPIR-V.
    const vk_floor_mod = b.createModule(.{ .target = b.resolveTargetQuery(floor_query), .optimize = .ReleaseFast, .link_libc = true });
    vk_floor_mod.addCSourceFile(.{ .file = b.path("bench/floor/vulkan_floor.c"), .flags = &.{ "-std=c11", "-Wall", "-Wextra", "-Werror" } });
    vk_floor_mod.linkSystemLibrary("dl", .{});
    floor.dependOn(&b.addInstallArtifact(b.addExecutable(.{ .name = "vulkan_floor", .root_module = vk_floor_mod }), .{}).step);
}

fn parseBackends(list: []const u8) [known_backends.len]bool {
    var on = [_]bool{false} ** known_backends.len;
    var it = std.mem.tokenizeAny(u8, list, ", ");
    next: while (it.next()) |name| {
        for (known_backends, 0..) |k, i| {
            if (std.mem.eql(u8, k, name)) {
                on[i] = true;
                continue :next;
            }
        }
        std.debug.print("error: -Dbackends: unknown backend '{s}' (known: cpu, cuda, vulkan, metal, hip)\n", .{name});
        std.process.exit(1);
    }
    return on;
}

/// A backend is compiled when it is enabled and its directory holds C sources.
fn backendSources(b: *std.Build, name: []const u8) [][]const u8 {
    return globC(b, b.fmt("native/src/backends/{s}", .{name}));
}

/// Every .c file under dir (recursively), relative to dir, sorted for stable builds.
fn globC(b: *std.Build, rel: []const u8) [][]const u8 {
    var files: std.ArrayList([]const u8) = .empty;
    var dir = b.build_root.handle.openDir(rel, .{ .iterate = true }) catch return files.items;
    defer dir.close();
    var walker = dir.walk(b.allocator) catch @panic("OOM");
    defer walker.deinit();
    while (walker.next() catch |e| std.debug.panic("cannot list {s}: {s}", .{ rel, @errorName(e) })) |entry| {
        if (entry.kind == .file and std.mem.endsWith(u8, entry.path, ".c"))
            files.append(b.allocator, b.dupe(entry.path)) catch @panic("OOM");
    }
    std.mem.sort([]const u8, files.items, {}, struct {
        fn lt(_: void, x: []const u8, y: []const u8) bool {
            return std.mem.lessThan(u8, x, y);
        }
    }.lt);
    return files.items;
}

/// backends_table.c: one row per known backend; absent ones get a count() that says why.
fn generateTable(b: *std.Build, enabled: [known_backends.len]bool) std.Build.LazyPath {
    var src: std.ArrayList(u8) = .empty;
    const w = src.writer(b.allocator);
    w.writeAll("/* Generated by build.zig: the backends table. Do not edit. */\n#include \"driver.h\"\n\n") catch @panic("OOM");
    for (known_backends, 0..) |name, i| {
        if (enabled[i] and backendSources(b, name).len > 0) {
            w.print("extern const pt_driver pt_driver_{s};\n", .{name}) catch @panic("OOM");
        } else {
            w.print(
                \\static int absent_{0s}_count(void) {{
                \\  pt_error(PT_EUNAVAILABLE, "{0s}: not compiled in this build (polytensor was built without it)");
                \\  return 0;
                \\}}
                \\static const pt_driver pt_driver_{0s} = {{ .name = "{0s}", .count = absent_{0s}_count, .language = "none" }};
                \\
            , .{name}) catch @panic("OOM");
        }
    }
    w.writeAll("\nconst pt_driver *const pt_drivers[] = {") catch @panic("OOM");
    for (known_backends) |name| w.print(" &pt_driver_{s},", .{name}) catch @panic("OOM");
    w.print(" }};\nconst int pt_driver_count = {d};\n", .{known_backends.len}) catch @panic("OOM");
    const wf = b.addWriteFiles();
    return wf.add("backends_table.c", src.items);
}

fn addShim(
    b: *std.Build,
    target: std.Build.ResolvedTarget,
    optimize: std.builtin.OptimizeMode,
    enabled: [known_backends.len]bool,
    table: std.Build.LazyPath,
    strip: ?bool,
) *std.Build.Step.Compile {
    const mod = b.createModule(.{ .target = target, .optimize = optimize, .link_libc = true, .strip = strip });
    mod.addIncludePath(b.path("native/include"));
    mod.addIncludePath(b.path("native/src/core"));
    mod.addCSourceFiles(.{ .root = b.path("native/src/core"), .files = globC(b, "native/src/core"), .flags = &c_flags });
    for (known_backends, 0..) |name, i| {
        if (!enabled[i]) continue;
        const files = backendSources(b, name);
        if (files.len == 0) continue;
        const hip = std.mem.eql(u8, name, "hip");
        const flags: []const []const u8 = if (hip) &hip_flags else &c_flags;
        mod.addCSourceFiles(.{ .root = b.path(b.fmt("native/src/backends/{s}", .{name})), .files = files, .flags = flags });
        if (hip) mod.addCSourceFiles(.{ .root = b.path("native/src/backends/cuda"), .files = &cuda_shared, .flags = flags });
    }
    mod.addCSourceFile(.{ .file = table, .flags = &c_flags });
    const os = target.result.os.tag;
    if (os == .linux) {
        mod.linkSystemLibrary("m", .{});
        mod.linkSystemLibrary("pthread", .{});
        mod.linkSystemLibrary("dl", .{});
    }
    return b.addLibrary(.{ .name = "polytensor", .linkage = .dynamic, .root_module = mod });
}
