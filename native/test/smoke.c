/* smoke.c: a quick native check of the exported ABI (zig build smoke).
 *
 * Runs against the CPU backend only: allocation, a write/read round trip, stale handles,
 * close and reopen, and garbage arguments, which must all give a status, never a crash.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "polytensor.h"

static int failures;
#define CHECK(cond) do { if (!(cond)) { failures++; fprintf(stderr, "smoke: line %d: %s (last error: %s)\n", __LINE__, #cond, last()); } } while (0)

static const char *last(void) {
  static char buf[512];
  int n = pt_last_error((uint8_t *)buf, sizeof buf - 1);
  buf[n < (int)sizeof buf - 1 ? n : (int)sizeof buf - 1] = 0;
  return buf;
}

static int find_backend(const char *name) {
  for (int i = 0; i < pt_backend_count(); i++) {
    char b[32] = {0};
    int n = pt_backend_name(i, (uint8_t *)b, sizeof b - 1);
    if (n == (int)strlen(name) && memcmp(b, name, (size_t)n) == 0) return i;
  }
  return -1;
}

int main(void) {
  int base_handles = pt_live_handles();
  CHECK(pt_abi_version() == PT_ABI_VERSION);
  int cpu = find_backend("cpu"), cuda = find_backend("cuda");
  CHECK(cpu >= 0 && cuda >= 0 && pt_backend_count() == 5);
  CHECK(pt_device_count(cpu) == 1);
  if (pt_device_count(cuda) == 0) CHECK(strncmp(last(), "cuda: ", 6) == 0); /* a reason, never silence */

  int dev = pt_device_open(cpu, 0);
  CHECK(dev > 0 && pt_device_open(cpu, 0) == dev);
  int q = pt_device_queue(dev);
  CHECK(q > 0);

  float in[256], out[256];
  for (int i = 0; i < 256; i++) in[i] = (float)i * 0.5f;
  int buf = pt_buffer_alloc(dev, sizeof in);
  CHECK(buf > 0 && pt_buffer_size(buf) == sizeof in);
  CHECK(pt_buffer_write(q, buf, 0, in, sizeof in) == PT_OK);
  CHECK(pt_buffer_read(q, buf, 0, out, sizeof out) == PT_OK && memcmp(in, out, sizeof in) == 0);
  CHECK(pt_buffer_read(q, buf, 4, out, sizeof out) == PT_EINVAL); /* past the end */
  CHECK(pt_live_bytes() == sizeof in);

  int empty = pt_buffer_alloc(dev, 0);
  CHECK(empty > 0 && pt_buffer_size(empty) == 0 && pt_buffer_read(q, empty, 0, NULL, 0) == PT_OK);
  CHECK(pt_buffer_release(empty) == PT_OK);

  /* A released buffer's handle is rejected, and so is a retained one's after both go. */
  CHECK(pt_buffer_retain(buf) == PT_OK && pt_buffer_release(buf) == PT_OK && pt_buffer_size(buf) > 0);
  CHECK(pt_buffer_release(buf) == PT_OK);
  CHECK(pt_buffer_read(q, buf, 0, out, 4) == PT_EHANDLE && strstr(last(), "freed"));
  CHECK(pt_buffer_release(q) == PT_EHANDLE && strstr(last(), "expected a buffer"));

  double stats[PT_MEM_COUNT];
  CHECK(pt_memory_stats(dev, stats) == PT_OK && stats[PT_MEM_IN_USE] == 0 && stats[PT_MEM_ALLOCS] == 2);
  int again = pt_buffer_alloc(dev, 1000);
  CHECK(pt_memory_stats(dev, stats) == PT_OK && stats[PT_MEM_CACHE_HITS] == 1);

  int f0 = pt_fence_record(q), f1 = pt_fence_record(q);
  CHECK(f0 > 0 && pt_fence_query(f0) == 1 && pt_fence_wait(f1) == PT_OK && pt_fence_elapsed_ms(f0, f1) >= 0);
  CHECK(pt_fence_free(f0) == PT_OK && pt_fence_free(f0) == PT_EHANDLE);
  CHECK(pt_program_create(dev, (const uint8_t *)"nope", 4, NULL, 0) == PT_EINVAL && strstr(last(), "nope"));

  /* Closing frees everything made under the device; reopening starts afresh. */
  CHECK(pt_device_close(dev) == PT_OK);
  CHECK(pt_buffer_size(again) == PT_EHANDLE && strstr(last(), "closed"));
  CHECK(pt_fence_free(f1) == PT_EHANDLE && pt_device_queue(dev) == PT_EHANDLE);
  CHECK(pt_live_handles() == base_handles && pt_live_bytes() == 0);
  dev = pt_device_open(cpu, 0);
  q = pt_device_queue(dev);
  CHECK(dev > 0 && q > 0);

  /* A cached block handed to another queue: the core orders the new user after the queue
   * that used it last, also once that queue is gone (its stamp must not dangle). On the CPU
   * every queue runs at once, so this checks the bookkeeping, not the timing. */
  {
    double st0[PT_MEM_COUNT], st1[PT_MEM_COUNT];
    float got[256];
    int qa = pt_queue_create(dev), qb = pt_queue_create(dev);
    CHECK(qa > 0 && qb > 0);
    int x = pt_buffer_alloc(dev, sizeof in), other = pt_buffer_alloc(dev, sizeof in);
    CHECK(pt_buffer_write(qa, x, 0, in, sizeof in) == PT_OK && pt_buffer_copy(qa, x, 0, other, 0, sizeof in) == PT_OK);
    CHECK(pt_buffer_release(x) == PT_OK && pt_memory_stats(dev, st0) == PT_OK);
    int y = pt_buffer_alloc(dev, sizeof in); /* x's block, last used on qa */
    CHECK(pt_memory_stats(dev, st1) == PT_OK && st1[PT_MEM_CACHE_HITS] == st0[PT_MEM_CACHE_HITS] + 1);
    CHECK(pt_buffer_copy(qb, other, 0, y, 0, sizeof in) == PT_OK && pt_buffer_read(qb, y, 0, got, sizeof got) == PT_OK);
    CHECK(memcmp(got, in, sizeof in) == 0);
    int f = pt_fence_record(qb);
    CHECK(f > 0 && pt_queue_wait_fence(qa, f) == PT_OK && pt_fence_free(f) == PT_OK);
    CHECK(pt_buffer_write(qa, y, 0, in, sizeof in) == PT_OK); /* after qb: qa waited for it above */
    CHECK(pt_queue_free(qa) == PT_OK && pt_buffer_release(y) == PT_OK); /* y's block now stamped by a freed queue */
    int z = pt_buffer_alloc(dev, sizeof in);
    CHECK(pt_buffer_write(qb, z, 0, in, sizeof in) == PT_OK && pt_buffer_write(q, z, 0, in, sizeof in) == PT_OK);
    CHECK(pt_buffer_read(q, z, 0, got, sizeof got) == PT_OK && memcmp(got, in, sizeof in) == 0);
    CHECK(pt_queue_free(qb) == PT_OK && pt_buffer_release(z) == PT_OK && pt_buffer_release(other) == PT_OK);
    int w = pt_buffer_alloc(dev, sizeof in); /* stamped by qb, gone too */
    CHECK(pt_buffer_write(q, w, 0, in, sizeof in) == PT_OK && pt_buffer_release(w) == PT_OK);
  }

  /* Garbage: every call must fail cleanly. */
  static const int hs[] = {0, -1, 1, 7, 1 << 20, (1 << 20) + 1, 0x7fffffff, -2147483647 - 1};
  for (size_t i = 0; i < sizeof hs / sizeof *hs; i++) {
    int h = hs[i];
    CHECK(pt_buffer_release(h) < 0 && pt_buffer_size(h) < 0 && pt_buffer_host(h) == NULL);
    CHECK(pt_fence_query(h) < 0 && pt_queue_free(h) < 0 && pt_program_free(h) < 0 && pt_device_close(h) < 0);
    CHECK(pt_buffer_write(h, h, 0, in, 4) < 0 && pt_launch(h, h, (const double[]){0}, 1) < 0);
  }
  CHECK(pt_buffer_alloc(dev, NAN) == PT_EINVAL && pt_buffer_alloc(dev, -1) == PT_EINVAL);
  CHECK(pt_buffer_alloc(dev, 1e300) == PT_EINVAL && pt_buffer_alloc(dev, 0.5) == PT_EINVAL);
  CHECK(pt_buffer_alloc(dev, 1e15) == PT_EOOM && strstr(last(), "bytes asked"));
  int b2 = pt_buffer_alloc(dev, 64);
  CHECK(pt_buffer_write(q, b2, 0, NULL, 8) == PT_EINVAL && pt_buffer_write(q, b2, INFINITY, in, 8) == PT_EINVAL);
  CHECK(pt_buffer_copy(q, b2, 0, b2, 8, 56) == PT_OK && pt_buffer_copy(q, b2, 0, b2, 9, 56) == PT_EINVAL);
  CHECK(pt_buffer_wrap(dev, NULL, 8) == PT_EINVAL && pt_launch(q, 0, NULL, 5) == PT_EINVAL);
  CHECK(pt_launch(q, 0, (const double[]){NAN}, 1) == PT_EINVAL && pt_launch(q, 0, (const double[]){3, 1}, 2) == PT_EINVAL);
  CHECK(pt_device_open(-1, 0) == PT_EINVAL && pt_device_open(cpu, 5) == PT_EINVAL && pt_device_open(cuda, 0) < 0);
  CHECK(pt_backend_name(0, NULL, 10) == PT_EINVAL && pt_device_name(cpu, 0, NULL, 0) > 0);
  CHECK(pt_device_has(dev, NULL, 4) == PT_EINVAL && pt_device_has(dev, (const uint8_t *)"f64", 3) == 1);
  CHECK(pt_program_create(dev, (const uint8_t *)"ew", -3, NULL, 0) == PT_EINVAL);
  CHECK(pt_program_create(dev, (const uint8_t *)"ew", 2, NULL, 100) == PT_EINVAL);
  CHECK(pt_queue_free(q) == PT_EINVAL && pt_memory_stats(dev, NULL) == PT_EINVAL);
  CHECK(pt_device_close(dev) == PT_OK && pt_live_handles() == base_handles);

  if (failures) fprintf(stderr, "smoke: %d failure(s)\n", failures);
  else printf("smoke: ok\n");
  return failures != 0;
}
