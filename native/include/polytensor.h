/* polytensor.h: the C ABI that TypeScript sees, and nothing else.
 *
 * Ownership and ordering. Every object that crosses this ABI is a handle: a positive
 * 31-bit integer made of a slot index and a generation tag, never a pointer. A function
 * that creates an object returns its handle (> 0) or a negative PT_E* status; every other
 * function returns a status (0 = PT_OK). After a failure, pt_last_error() gives the
 * message (what failed, which backend, device and handle, the driver's own code). Stale,
 * freed or foreign handles give PT_EHANDLE, never a crash. Buffers are reference counted:
 * pt_buffer_retain() adds an owner (a view), pt_buffer_release() drops one and the
 * memory goes back to the device's caching allocator when the last owner is gone. Work
 * launched on one queue runs in launch order; a fence marks a queue position. Native code
 * never keeps a pointer into caller memory after a call returns, except pt_buffer_wrap(),
 * whose caller keeps the memory alive until the buffer is released. 64-bit sizes and
 * offsets travel as doubles (exact to 2^53) so that no call needs a BigInt.
 */
#ifndef POLYTENSOR_H
#define POLYTENSOR_H
#include <stdint.h>

#ifdef _WIN32
#define PT_API __declspec(dllexport)
#else
#define PT_API __attribute__((visibility("default")))
#endif

#define PT_ABI_VERSION 1

enum pt_status {
  PT_OK = 0,
  PT_EINVAL = -1,       /* bad argument: size, shape, dtype, argument block */
  PT_EHANDLE = -2,      /* stale, freed or foreign handle */
  PT_EUNAVAILABLE = -3, /* backend or device missing, or not compiled in */
  PT_EOOM = -4,         /* out of memory after the cache was trimmed */
  PT_EDRIVER = -5,      /* the driver library reported an error */
  PT_EKERNEL = -6,      /* a kernel failed (e.g. index out of range) */
  PT_EUNSUPPORTED = -7, /* the device lacks a capability the op needs */
  PT_ELOST = -8,        /* the device's context was lost to a fault (sticky); pt_device_lost() says 1 */
};

enum pt_dtype { /* element types; storage of bool is one byte, 0 or 1. New codes go last: cached programs name these. */
  PT_F32 = 0, PT_F16 = 1, PT_BF16 = 2, PT_F64 = 3,
  PT_I32 = 4, PT_I64 = 5, PT_U8 = 6, PT_BOOL = 7, PT_I8 = 8, PT_I16 = 9, PT_DTYPE_COUNT = 10
};

enum pt_device_field { /* pt_device_info() fills a double[PT_INFO_COUNT] */
  PT_INFO_MEMORY_TOTAL = 0, PT_INFO_HAS_F16 = 1, PT_INFO_HAS_BF16 = 2, PT_INFO_HAS_F64 = 3,
  PT_INFO_HAS_I64 = 4, PT_INFO_SUBGROUP = 5, PT_INFO_MAX_WORKGROUP = 6,
  PT_INFO_UNIFIED_MEMORY = 7, PT_INFO_COMPUTE_UNITS = 8,
  PT_INFO_CONTEXT = 9, /* 1 while a context exists for the device (this process's or, where the
                          driver can tell, anyone's): listing devices must leave it 0 */
  PT_INFO_SOFTWARE = 10, /* 1 for a CPU implementation of a GPU API (lavapipe, SwiftShader): never
                            picked as the default device over the CPU backend */
  PT_INFO_COUNT = 11
};

enum pt_mem_field { /* pt_memory_stats() fills a double[PT_MEM_COUNT] */
  PT_MEM_IN_USE = 0, PT_MEM_CACHED = 1, PT_MEM_PEAK = 2, PT_MEM_ALLOCS = 3,
  PT_MEM_FREES = 4, PT_MEM_CACHE_HITS = 5, PT_MEM_DRIVER_ALLOCS = 6,
  PT_MEM_QUEUE_WAITS = 7, /* device-side waits inserted because a buffer moved to another queue */
  PT_MEM_COUNT = 8
};

PT_API int32_t pt_abi_version(void);
/* Copies the last error message of this thread (UTF-8, no NUL) into buf; returns its full length. */
PT_API int32_t pt_last_error(uint8_t *buf, int32_t cap);

/* Inventory: never creates a context. Strings are copied into buf; the full length is returned. */
PT_API int32_t pt_backend_count(void);
PT_API int32_t pt_backend_name(int32_t backend, uint8_t *buf, int32_t cap);
/* > 0: number of devices; 0: none, and pt_last_error() says why. */
PT_API int32_t pt_device_count(int32_t backend);
PT_API int32_t pt_device_name(int32_t backend, int32_t index, uint8_t *buf, int32_t cap);
PT_API int32_t pt_device_info(int32_t backend, int32_t index, double *fields /* [PT_INFO_COUNT] */);
/* The kernel language the device's renderer must produce ("bytecode", "cuda", "hip", "glsl", "msl"). */
PT_API int32_t pt_device_language(int32_t backend, int32_t index, uint8_t *buf, int32_t cap);

/* Devices: opening activates the backend (context, queue); closing shuts it down, after which
 * every handle made under it is rejected, and a later open starts afresh. */
PT_API int32_t pt_device_open(int32_t backend, int32_t index);
PT_API int32_t pt_device_close(int32_t device);
PT_API int32_t pt_device_queue(int32_t device); /* the default queue */
PT_API int32_t pt_device_sync(int32_t device);

/* Memory. Sizes are bytes, exact; zero-byte buffers are valid. */
PT_API int32_t pt_buffer_alloc(int32_t device, double bytes);
PT_API int32_t pt_buffer_wrap(int32_t device, void *host, double bytes); /* capability "host_wrap" */
PT_API int32_t pt_buffer_retain(int32_t buffer);
PT_API int32_t pt_buffer_release(int32_t buffer);
PT_API double pt_buffer_size(int32_t buffer); /* < 0: status */
/* Host address of a buffer on a device with unified host memory, else NULL (and an error). */
PT_API void *pt_buffer_host(int32_t buffer);
PT_API int32_t pt_buffer_write(int32_t queue, int32_t buffer, double offset, const void *src, double bytes);
/* Waits for the queue's earlier work, then copies; src/dst are not kept after the call. */
PT_API int32_t pt_buffer_read(int32_t queue, int32_t buffer, double offset, void *dst, double bytes);
PT_API int32_t pt_buffer_copy(int32_t queue, int32_t src, double src_offset, int32_t dst, double dst_offset, double bytes);
PT_API int32_t pt_memory_stats(int32_t device, double *fields /* [PT_MEM_COUNT] */);
PT_API int32_t pt_memory_trim(int32_t device);
/* Bytes held by live buffers on every device (the leak test's baseline). */
PT_API double pt_live_bytes(void);

/* Programs: kind names a built-in template or a compiled language ("ew" = elementwise
 * bytecode); source is its text or bytecode. Cached by the caller; freed with pt_program_free. */
PT_API int32_t pt_program_create(int32_t device, const uint8_t *kind, int32_t kind_len, const uint8_t *source, int32_t source_len);
/* The same, declaring the argument layout the program is built for: `views` is the number of
 * VIEWs its blocks carry (ew: 1 + inputs), 0 for the kind's own (and, for ew bytecode, its
 * header's). pt_program_create is this with 0, so an ew program from text declares none. The
 * program keeps its layout: pt_launch refuses a block of another (PT_EINVAL naming both), and
 * compiled images cached on disk are stored with it and rebuilt when it differs. */
PT_API int32_t pt_program_create_layout(int32_t device, const uint8_t *kind, int32_t kind_len, const uint8_t *source,
                                        int32_t source_len, int32_t views);
PT_API int32_t pt_program_free(int32_t program);
/* Launches a program on a queue with a packed argument block of doubles (its layout is the
 * program kind's; buffers are handles). The error of a failing kernel is reported at its
 * queue position: by this call on synchronous devices, by the next fence otherwise. */
PT_API int32_t pt_launch(int32_t queue, int32_t program, const double *args, int32_t nargs);

/* Queues and fences. */
PT_API int32_t pt_queue_create(int32_t device);
PT_API int32_t pt_queue_free(int32_t queue);
PT_API int32_t pt_queue_wait_fence(int32_t queue, int32_t fence); /* on the device, not the host */
/* Orders the queue after the last other queue that used the buffer (on the device, as a launch
 * using it would be), so a fence recorded next passes only once the buffer's writes are done. */
PT_API int32_t pt_queue_wait_buffer(int32_t queue, int32_t buffer);
/* Submits work a batching device has recorded but not submitted; never waits. Devices with
 * capability "batched_submit" need it at the end of a task, so the GPU never idles while
 * the script does something else; elsewhere it does nothing. Syncs and reads flush too. */
PT_API int32_t pt_queue_flush(int32_t queue);
PT_API int32_t pt_fence_record(int32_t queue);
PT_API int32_t pt_fence_query(int32_t fence); /* 1 passed, 0 pending, < 0 the failure */
PT_API int32_t pt_fence_wait(int32_t fence);
PT_API double pt_fence_elapsed_ms(int32_t start, int32_t end); /* < 0: status */
PT_API int32_t pt_fence_free(int32_t fence);

/* Captured steps. Between pt_capture_begin and pt_capture_end, the launches and device
 * copies queued on the queue are recorded (capture_begin/end of the driver, or a list the
 * core keeps); pt_capture_end runs the recording once and returns a graph handle that
 * pt_graph_launch replays on a queue of the same device with no per-op work. The graph
 * holds every buffer and program its work touched until pt_graph_free, so buffers freed
 * inside the step are not reused by others. While capturing, host reads, writes and
 * device syncs on the queue fail, and captures do not nest. */
PT_API int32_t pt_capture_begin(int32_t queue);
PT_API int32_t pt_capture_end(int32_t queue); /* > 0: the graph */
PT_API int32_t pt_graph_launch(int32_t graph, int32_t queue);
PT_API int32_t pt_graph_free(int32_t graph);

/* Capabilities looked up by name (1 yes, 0 no), e.g. "host_wrap", "f64", "blas". */
PT_API int32_t pt_device_has(int32_t device, const uint8_t *name, int32_t name_len);
/* 1 when the device's context was lost to a fault (every call on it then fails with
 * PT_ELOST): close it and open it again to rebuild it, where the driver allows that; 0 when
 * healthy, or for a backend that cannot lose its context. */
PT_API int32_t pt_device_lost(int32_t device);
/* Number of live handles of all kinds (for tests of ownership). */
PT_API int32_t pt_live_handles(void);

#endif
