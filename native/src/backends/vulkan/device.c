/* device.c: the Vulkan driver's inventory, context lifetime, error text, and its table.
 *
 * Ownership and ordering. Inventory (count, name, info, has) reads lib.c's vk_phys rows and
 * never makes a logical device. activate() makes the VkDevice with the features params.h
 * needs, takes up to VK_MAX_VQUEUES queues of the compute family, the pipeline layout (one
 * 8-byte push constant), the pipeline cache (from disk, keyed by the device's cache UUID and
 * driver version), the error block and the timestamp pool; the core then makes queue 0
 * through queue_create. shutdown() runs after the core has freed every queue, fence,
 * program and buffer of the device: it waits for the device, saves the pipeline cache and
 * destroys what activate() made, so a later activate() starts afresh. A lost device
 * (VK_ERROR_DEVICE_LOST, a failed submission) is sticky: vk_fail() records the first
 * cause and every later call fails at once with it until the device is closed. A batch that
 * could not be ended or submitted counts as lost too: its semaphore value would never be
 * signalled, and a fence on it would wait forever.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "vkdrv.h"
#include "program_cache.h"

static int vk_lost(void *ctx) { return pt_sticky_code(&((vk_ctx *)ctx)->dead) != 0; }

int vk_fail(vk_ctx *c, const char *fn, VkResult r) {
  const char *name = vk_result_name(r);
  if (c && (r == VK_ERROR_DEVICE_LOST || r == VK_ERROR_UNKNOWN || strncmp(fn, "vkQueueSubmit", 13) == 0 ||
            strcmp(fn, "vkEndCommandBuffer") == 0)) {
    pt_sticky_set(&c->dead, r ? r : -1, "%s failed: %s (%d)", fn, name, r); /* the first cause is kept */
    return pt_error(PT_ELOST, "vulkan: %s failed: %s (%d); device %d (%s) is lost: close it (pt_device_close) and open "
                    "it again", fn, name, r, c->index, c->ph->name);
  }
  int st = r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY ? PT_EOOM : PT_EDRIVER;
  if (c) return pt_error(st, "vulkan: %s failed on device %d (%s): %s (%d)", fn, c->index, c->ph->name, name, r);
  return pt_error(st, "vulkan: %s failed: %s (%d)", fn, name, r);
}

int vk_enter(vk_ctx *c) {
  char msg[sizeof c->dead.msg];
  if (!pt_sticky_cause(&c->dead, msg, sizeof msg)) return PT_OK;
  return pt_error(PT_ELOST, "vulkan: device %d (%s) was lost earlier (%s); close the device (pt_device_close) and open "
                  "it again", c->index, c->ph->name, msg);
}

/* ---- inventory (no logical device) ------------------------------------------------------ */

static int vk_count(void) { return vk_phys_count(); }

static const vk_phys *row(int index) {
  if (vk_load() != PT_OK) return NULL;
  const vk_phys *p = vk_phys_get(index);
  if (!p) pt_error(PT_EINVAL, "vulkan: device index %d is outside [0, %d)", index, vk_phys_count());
  return p;
}

static int vk_device_name(int index, char *buf, size_t cap) {
  const vk_phys *p = row(index);
  if (!p) return PT_EINVAL;
  snprintf(buf, cap, "%s", p->name);
  return PT_OK;
}

/* f16 and bf16 are stored as 16-bit words and converted by bit manipulation (params.h), so
 * they need only 16-bit storage, which every usable device has. */
static int vk_device_info(int index, double *f) {
  const vk_phys *p = row(index);
  if (!p) return PT_EINVAL;
  f[PT_INFO_MEMORY_TOTAL] = p->mem_total;
  f[PT_INFO_HAS_F16] = p->s16;
  f[PT_INFO_HAS_BF16] = p->s16;
  f[PT_INFO_HAS_F64] = p->f64;
  f[PT_INFO_HAS_I64] = p->i64;
  f[PT_INFO_SUBGROUP] = p->subgroup;
  f[PT_INFO_MAX_WORKGROUP] = p->max_wg;
  f[PT_INFO_UNIFIED_MEMORY] = p->unified;
  f[PT_INFO_COMPUTE_UNITS] = 0; /* Vulkan does not say */
  f[PT_INFO_CONTEXT] = 0;       /* the core sets it while this process holds the device open */
  f[PT_INFO_SOFTWARE] = p->type == VK_PHYSICAL_DEVICE_TYPE_CPU;
  return PT_OK;
}

static int vk_has(int index, const char *cap) {
  const vk_phys *p = row(index);
  if (!p) return 0;
  if (strcmp(cap, "batched_submit") == 0) return 1;
  if (strcmp(cap, "f64") == 0) return p->f64;
  if (strcmp(cap, "f16") == 0 || strcmp(cap, "bf16") == 0) return p->s16;
  if (strcmp(cap, "f16_arith") == 0) return p->f16_arith;
  if (strcmp(cap, "i64") == 0 || strcmp(cap, "int64") == 0) return p->i64;
  if (strcmp(cap, "timeline") == 0) return p->timeline;
  if (strcmp(cap, "bda") == 0) return p->bda;
  if (strcmp(cap, "unified_memory") == 0) return p->unified;
  if (strcmp(cap, "timestamps") == 0) return p->ts_bits > 0;
  if (strcmp(cap, "memory_budget") == 0) return p->budget;
  if (strcmp(cap, "denorm_f32") == 0) return p->denorm32;
  if (strcmp(cap, "glsl") == 0) return shaderc_load() == PT_OK;
  /* float16 matmuls on cooperative matrices (glsl/coopmat.ts); PT_VK_COOPMAT=0 keeps them on the tiled kernel */
  if (strcmp(cap, "matmul_f16") == 0) return vk_coopmat(p);
  if (strcmp(cap, "graphs") == 0) return 1; /* pt_capture_* record command buffers (graph.c) */
  return 0; /* host_wrap, blas: not on this backend */
}

/* ---- context lifetime ------------------------------------------------------------------- */

static void release(vk_ctx *c) {
  if (c->dev) {
    c->d.vkDeviceWaitIdle(c->dev);
    if (c->pcache) {
      size_t n = 0;
      unsigned char *data = NULL;
      if (!pt_sticky_code(&c->dead) && c->d.vkGetPipelineCacheData(c->dev, c->pcache, &n, NULL) == VK_SUCCESS && n > 0 &&
          (data = malloc(n)) && c->d.vkGetPipelineCacheData(c->dev, c->pcache, &n, data) == VK_SUCCESS)
        pt_cache_disk_put(c->pcache_key, ".vkpc", data, n);
      free(data);
      c->d.vkDestroyPipelineCache(c->dev, c->pcache, NULL);
    }
    if (c->errblk) vk_mem_destroy(c, c->errblk);
    if (c->qpool) c->d.vkDestroyQueryPool(c->dev, c->qpool, NULL);
    if (c->layout) c->d.vkDestroyPipelineLayout(c->dev, c->layout, NULL);
    c->d.vkDestroyDevice(c->dev, NULL);
  }
  pt_outcome_free(&c->word.launch_fail);
  free(c);
}

static int make_device(vk_ctx *c) {
  const vk_phys *p = c->ph;
  VkPhysicalDeviceCooperativeMatrixFeaturesKHR cm = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR,
                                                    .cooperativeMatrix = 1};
  VkPhysicalDeviceVulkan12Features f12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, .pNext = p->coopmat ? &cm : NULL,
                                          .bufferDeviceAddress = 1, .timelineSemaphore = 1, .storageBuffer8BitAccess = 1,
                                          .shaderFloat16 = (VkBool32)p->f16_arith, .shaderInt8 = (VkBool32)p->i8_arith,
                                          .vulkanMemoryModel = (VkBool32)p->vmm};
  VkPhysicalDeviceVulkan11Features f11 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES, .pNext = &f12,
                                          .storageBuffer16BitAccess = 1};
  VkPhysicalDeviceFeatures2 f = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &f11};
  f.features.shaderInt64 = 1;
  f.features.shaderFloat64 = 1;
  f.features.shaderInt16 = (VkBool32)p->i16;
  float prio[VK_MAX_VQUEUES] = {1, 1, 1, 1};
  c->nvq = p->nqueues < VK_MAX_VQUEUES ? p->nqueues : VK_MAX_VQUEUES;
  VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueFamilyIndex = p->family,
                                 .queueCount = c->nvq, .pQueuePriorities = prio};
  const char *exts[3];
  uint32_t next = 0;
  if (p->coopmat) exts[next++] = "VK_KHR_cooperative_matrix";
  if (p->budget) exts[next++] = "VK_EXT_memory_budget";
  if (p->portability) exts[next++] = "VK_KHR_portability_subset"; /* required when offered (MoltenVK) */
  VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .pNext = &f, .queueCreateInfoCount = 1,
                            .pQueueCreateInfos = &qci, .enabledExtensionCount = next, .ppEnabledExtensionNames = exts};
  VkResult r = vki.vkCreateDevice(p->pd, &dci, NULL, &c->dev);
  if (r != VK_SUCCESS) { c->dev = NULL; return vk_fail(NULL, "vkCreateDevice", r); }
#define GET_D(name, ret, args) c->d.name = (ret(VKAPI_PTR *) args)vki.vkGetDeviceProcAddr(c->dev, #name);
  PT_VK_DEVICE(GET_D)
#define CHECK_D(name, ret, args) if (!c->d.name) missing = #name;
  const char *missing = NULL;
  PT_VK_DEVICE(CHECK_D)
  if (missing) return pt_error(PT_EUNSUPPORTED, "vulkan: device %d (%s) does not provide %s", c->index, p->name, missing);
  for (uint32_t i = 0; i < c->nvq; i++) c->d.vkGetDeviceQueue(c->dev, p->family, i, &c->vq[i]);
  VkPhysicalDeviceMemoryProperties2 mp = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2};
  vki.vkGetPhysicalDeviceMemoryProperties2(p->pd, &mp);
  c->mp = mp.memoryProperties;
  const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                     VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  for (uint32_t i = 0; i < c->mp.memoryTypeCount && p->unified; i++)
    if ((c->mp.memoryTypes[i].propertyFlags & want) == want) c->unified = 1;
  return PT_OK;
}

static int vk_activate(int index, void **out) {
  const vk_phys *p = row(index);
  if (!p) return PT_EINVAL;
  if (p->missing[0])
    return pt_error(PT_EUNSUPPORTED, "vulkan: device %d (%s, Vulkan %u.%u) lacks %s, which polytensor's Vulkan kernels need",
                    index, p->name, VK_API_VERSION_MAJOR(p->api), VK_API_VERSION_MINOR(p->api), p->missing);
  vk_ctx *c = calloc(1, sizeof *c);
  if (!c) return pt_error(PT_EOOM, "vulkan: out of host memory for a context");
  c->lock = (pt_mutex)PT_MUTEX_INIT;
  pt_sticky_init(&c->dead);
  c->index = index;
  c->ph = p;
  snprintf(c->where, sizeof c->where, "vulkan (%s)", p->name);
  int st = make_device(c);
  if (st != PT_OK) { release(c); return st; }

  VkPushConstantRange pc = {.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT, .offset = 0, .size = 8};
  VkPipelineLayoutCreateInfo lci = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .pushConstantRangeCount = 1,
                                    .pPushConstantRanges = &pc};
  VkResult r = c->d.vkCreatePipelineLayout(c->dev, &lci, NULL, &c->layout);
  if (r != VK_SUCCESS) { st = vk_fail(c, "vkCreatePipelineLayout", r); goto fail; }

  /* The driver validates the blob's header against the device itself; the key only keeps
   * one file per device and driver. */
  uint64_t key = pt_cache_hash(PT_CACHE_SEED, "polytensor-vkpc-1", 17);
  key = pt_cache_hash(key, p->cache_uuid, VK_UUID_SIZE);
  key = pt_cache_hash(key, p->dev_uuid, VK_UUID_SIZE);
  key = pt_cache_hash(key, &p->driver_version, sizeof p->driver_version);
  c->pcache_key = key;
  size_t n = 0;
  unsigned char *blob = pt_cache_disk_get(key, ".vkpc", &n);
  VkPipelineCacheCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO, .initialDataSize = blob ? n : 0,
                                   .pInitialData = blob};
  r = c->d.vkCreatePipelineCache(c->dev, &pci, NULL, &c->pcache);
  if (r != VK_SUCCESS && blob) { /* a blob the driver refuses: start empty */
    pci.initialDataSize = 0;
    pci.pInitialData = NULL;
    r = c->d.vkCreatePipelineCache(c->dev, &pci, NULL, &c->pcache);
  }
  free(blob);
  if (r != VK_SUCCESS) { c->pcache = NULL; st = vk_fail(c, "vkCreatePipelineCache", r); goto fail; }

  /* Memory types: raw buffers in device-local memory (mapped where every device-local type
   * is host-visible), staging in host-visible coherent memory. */
  if ((st = vk_mem_make(c, 32, VK_MEM_STAGING, &c->errblk)) != PT_OK) goto fail;
  memset(c->errblk->map, 0, 32);

  if (p->ts_bits > 0) {
    VkQueryPoolCreateInfo qpi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO, .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                 .queryCount = VK_QUERIES};
    if (c->d.vkCreateQueryPool(c->dev, &qpi, NULL, &c->qpool) != VK_SUCCESS) c->qpool = NULL; /* fences without timing */
  }
  *out = c;
  return PT_OK;
fail:
  release(c);
  return st;
}

static void vk_shutdown(void *ctx) { release(ctx); }

const pt_driver pt_driver_vulkan = {
    .name = "vulkan",
    .count = vk_count,
    .device_name = vk_device_name,
    .device_info = vk_device_info,
    .language = "glsl",
    .has = vk_has,
    .activate = vk_activate,
    .shutdown = vk_shutdown,
    .alloc = vk_alloc,
    .free = vk_free,
    .wrap = NULL,
    .queue_create = vk_queue_create,
    .queue_free = vk_queue_free,
    .write = vk_write,
    .read = vk_read,
    .copy = vk_copy,
    .sync = vk_sync,
    .fence_record = vk_fence_record,
    .fence_query = vk_fence_query,
    .fence_wait = vk_fence_wait,
    .queue_wait = vk_queue_wait,
    .fence_elapsed_ms = vk_fence_elapsed_ms,
    .fence_free = vk_fence_free,
    .program_create = vk_program_create,
    .program_free = vk_program_free,
    .launch = vk_launch,
    .lost = vk_lost,
    .mem_info = vk_mem_info,
    .unwrap = NULL,
    .flush = vk_flush,
    .capture_begin = vk_capture_begin,
    .capture_end = vk_capture_end,
    .graph_launch = vk_graph_launch,
    .graph_free = vk_graph_free,
};
