/* lib.c: opens the Vulkan loader and libshaderc at run time, makes the process's VkInstance
 * and reads the inventory of physical devices.
 *
 * Ownership and ordering. Everything here happens once per process, on first use, under
 * lib_lock; the outcome (the tables and the vk_phys rows, or the reason it failed) is
 * kept, so later calls cost one lock and give the same answer. Listing devices needs an
 * instance but never a logical device. The instance and the libraries are never released:
 * contexts come and go (device.c) and reuse them, and unloading a loader under a live ICD
 * can take the process down.
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "vkdrv.h"

#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
static void *lib_open(const char *n) { return (void *)LoadLibraryA(n); }
static void *lib_sym(void *h, const char *n) {
  FARPROC p = GetProcAddress((HMODULE)h, n);
  void *v;
  memcpy(&v, &p, sizeof v);
  return v;
}
static const char *lib_err(void) { return "LoadLibrary failed"; }
static const char *const vk_names[] = {"vulkan-1.dll", NULL};
static const char *const shc_names[] = {"shaderc_shared.dll", NULL};
#else
#include <dlfcn.h>
static void *lib_open(const char *n) { return dlopen(n, RTLD_NOW | RTLD_LOCAL); }
static void *lib_sym(void *h, const char *n) { return dlsym(h, n); }
static const char *lib_err(void) { const char *e = dlerror(); return e ? e : "dlopen failed"; }
#ifdef __APPLE__
static const char *const vk_names[] = {"libvulkan.1.dylib", "libvulkan.dylib", "libMoltenVK.dylib", NULL};
static const char *const shc_names[] = {"libshaderc_shared.1.dylib", "libshaderc_shared.dylib", NULL};
#else
static const char *const vk_names[] = {"libvulkan.so.1", "libvulkan.so", NULL};
static const char *const shc_names[] = {"libshaderc.so.1", "libshaderc_shared.so.1", "libshaderc_shared.so", "libshaderc.so", NULL};
#endif
#endif

vk_inst_api vki;
shaderc_api shc;
VkInstance vk_instance;

static pt_mutex lib_lock = PT_MUTEX_INIT;
static int vk_tried, vk_status, shc_tried, shc_status;
static char vk_reason[512], shc_reason[512];
static vk_phys phys[VK_MAX_DEVICES];
static int nphys;
static unsigned shc_ver;

const char *vk_result_name(VkResult r) {
  switch (r) {
#define N(x) case x: return #x;
    N(VK_SUCCESS) N(VK_NOT_READY) N(VK_TIMEOUT) N(VK_INCOMPLETE) N(VK_ERROR_OUT_OF_HOST_MEMORY)
    N(VK_ERROR_OUT_OF_DEVICE_MEMORY) N(VK_ERROR_INITIALIZATION_FAILED) N(VK_ERROR_DEVICE_LOST)
    N(VK_ERROR_MEMORY_MAP_FAILED) N(VK_ERROR_LAYER_NOT_PRESENT) N(VK_ERROR_EXTENSION_NOT_PRESENT)
    N(VK_ERROR_FEATURE_NOT_PRESENT) N(VK_ERROR_INCOMPATIBLE_DRIVER) N(VK_ERROR_TOO_MANY_OBJECTS)
    N(VK_ERROR_FORMAT_NOT_SUPPORTED) N(VK_ERROR_FRAGMENTED_POOL) N(VK_ERROR_UNKNOWN) N(VK_ERROR_OUT_OF_POOL_MEMORY)
    N(VK_ERROR_INVALID_EXTERNAL_HANDLE) N(VK_ERROR_FRAGMENTATION) N(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
    N(VK_PIPELINE_COMPILE_REQUIRED) N(VK_ERROR_INVALID_SHADER_NV)
#undef N
  default: return "VK_ERROR_(unnamed)";
  }
}

static int has_ext(const VkExtensionProperties *e, uint32_t n, const char *name) {
  for (uint32_t i = 0; i < n; i++)
    if (strcmp(e[i].extensionName, name) == 0) return 1;
  return 0;
}

/* Whether the device runs what glsl/coopmat.ts asks for: float16 A and B, float32 C and
 * result, 16x16x16, subgroup scope, with 32-wide subgroups and float16 arithmetic. */
static int coopmat_f16(VkPhysicalDevice pd, const vk_phys *p) {
  if (p->subgroup != 32 || !p->f16_arith) return 0;
  VkPhysicalDeviceCooperativeMatrixFeaturesKHR cf = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR};
  VkPhysicalDeviceFeatures2 f = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &cf};
  vki.vkGetPhysicalDeviceFeatures2(pd, &f);
  PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR props = (PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR)
      vki.vkGetInstanceProcAddr(vk_instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR");
  uint32_t n = 0;
  if (!cf.cooperativeMatrix || !props || props(pd, &n, NULL) != VK_SUCCESS || n == 0) return 0;
  VkCooperativeMatrixPropertiesKHR *cp = calloc(n, sizeof *cp);
  int ok = 0;
  if (cp) {
    for (uint32_t i = 0; i < n; i++) cp[i].sType = VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_KHR;
    if (props(pd, &n, cp) == VK_SUCCESS)
      for (uint32_t i = 0; i < n && !ok; i++)
        ok = cp[i].MSize == 16 && cp[i].NSize == 16 && cp[i].KSize == 16 && cp[i].AType == VK_COMPONENT_TYPE_FLOAT16_KHR &&
             cp[i].BType == VK_COMPONENT_TYPE_FLOAT16_KHR && cp[i].CType == VK_COMPONENT_TYPE_FLOAT32_KHR &&
             cp[i].ResultType == VK_COMPONENT_TYPE_FLOAT32_KHR && cp[i].scope == VK_SCOPE_SUBGROUP_KHR;
  }
  free(cp);
  return ok;
}

/* Reads what params.h needs and what pt_device_info reports. */
static void inspect(VkPhysicalDevice pd, vk_phys *p) {
  memset(p, 0, sizeof *p);
  p->pd = pd;
  VkPhysicalDeviceIDProperties idp = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
  VkPhysicalDeviceFloatControlsProperties fc = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES, .pNext = &idp};
  VkPhysicalDeviceSubgroupProperties sg = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES, .pNext = &fc};
  VkPhysicalDeviceProperties2 pr = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &sg};
  vki.vkGetPhysicalDeviceProperties2(pd, &pr);
  const VkPhysicalDeviceProperties *P = &pr.properties;
  snprintf(p->name, sizeof p->name, "%s", P->deviceName);
  p->api = P->apiVersion;
  p->driver_version = P->driverVersion;
  p->vendor = P->vendorID;
  p->device_id = P->deviceID;
  p->type = (uint32_t)P->deviceType;
  memcpy(p->cache_uuid, P->pipelineCacheUUID, VK_UUID_SIZE);
  memcpy(p->dev_uuid, idp.deviceUUID, VK_UUID_SIZE);
  p->subgroup = sg.subgroupSize;
  p->max_wg = P->limits.maxComputeWorkGroupInvocations;
  p->ts_period = P->limits.timestampPeriod;
  p->denorm32 = fc.shaderDenormPreserveFloat32 != 0;
  int v12 = VK_API_VERSION_MAJOR(p->api) > 1 || VK_API_VERSION_MINOR(p->api) >= 2;

  /* The 1.1/1.2 feature structs may only be chained on a 1.2 device. */
  VkPhysicalDeviceVulkan12Features f12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceVulkan11Features f11 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES, .pNext = &f12};
  VkPhysicalDeviceFeatures2 f = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = v12 ? &f11 : NULL};
  vki.vkGetPhysicalDeviceFeatures2(pd, &f);
  p->f64 = f.features.shaderFloat64 != 0;
  p->i64 = f.features.shaderInt64 != 0;
  p->i16 = f.features.shaderInt16 != 0;
  p->f16_arith = f12.shaderFloat16 != 0;
  p->i8_arith = f12.shaderInt8 != 0;
  p->s8 = f12.storageBuffer8BitAccess != 0;
  p->s16 = f11.storageBuffer16BitAccess != 0;
  p->bda = f12.bufferDeviceAddress != 0;
  p->timeline = f12.timelineSemaphore != 0;
  p->vmm = f12.vulkanMemoryModel != 0;

  VkPhysicalDeviceMemoryProperties2 mp = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2};
  vki.vkGetPhysicalDeviceMemoryProperties2(pd, &mp);
  const VkPhysicalDeviceMemoryProperties *M = &mp.memoryProperties;
  int local = 0, local_visible = 1;
  for (uint32_t i = 0; i < M->memoryHeapCount; i++)
    if (M->memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) p->mem_total += (double)M->memoryHeaps[i].size;
  for (uint32_t i = 0; i < M->memoryTypeCount; i++)
    if (M->memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) {
      local = 1;
      if (!(M->memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)) local_visible = 0;
    }
  p->unified = local && local_visible; /* lavapipe, many integrated GPUs */

  uint32_t nfam = 0;
  vki.vkGetPhysicalDeviceQueueFamilyProperties(pd, &nfam, NULL);
  VkQueueFamilyProperties fam[32];
  if (nfam > 32) nfam = 32;
  vki.vkGetPhysicalDeviceQueueFamilyProperties(pd, &nfam, fam);
  /* A compute family with timestamps, preferring one without graphics (a dedicated compute
   * engine is not shared with rendering). */
  int best = -1, score = -1;
  for (uint32_t i = 0; i < nfam; i++) {
    if (!(fam[i].queueFlags & VK_QUEUE_COMPUTE_BIT) || fam[i].queueCount == 0) continue;
    int s = (fam[i].timestampValidBits > 0) * 2 + !(fam[i].queueFlags & VK_QUEUE_GRAPHICS_BIT);
    if (s > score) { score = s; best = (int)i; }
  }
  if (best >= 0) {
    p->family = (uint32_t)best;
    p->nqueues = fam[best].queueCount;
    p->ts_bits = fam[best].timestampValidBits;
  }

  uint32_t next = 0;
  VkExtensionProperties *ext = NULL;
  if (vki.vkEnumerateDeviceExtensionProperties(pd, NULL, &next, NULL) == VK_SUCCESS && next &&
      (ext = calloc(next, sizeof *ext)) && vki.vkEnumerateDeviceExtensionProperties(pd, NULL, &next, ext) == VK_SUCCESS) {
    p->budget = has_ext(ext, next, "VK_EXT_memory_budget");
    p->portability = has_ext(ext, next, "VK_KHR_portability_subset");
    if (has_ext(ext, next, "VK_KHR_cooperative_matrix")) p->coopmat = coopmat_f16(pd, p);
  }
  free(ext);

  const char *miss = !v12 ? "Vulkan 1.2" : best < 0 ? "a compute queue" : !p->bda ? "bufferDeviceAddress"
                     : !p->i64 ? "shaderInt64" : !p->f64 ? "shaderFloat64" : !p->s8 ? "storageBuffer8BitAccess"
                     : !p->s16 ? "storageBuffer16BitAccess" : !p->timeline ? "timelineSemaphore" : "";
  if (*miss) snprintf(p->missing, sizeof p->missing, "%s", miss);
}

int vk_coopmat(const vk_phys *p) {
  const char *sw = getenv("PT_VK_COOPMAT");
  /* glslangValidator, the fallback compiler, may predate GL_KHR_cooperative_matrix */
  return p->coopmat && !(sw && strcmp(sw, "0") == 0) && shaderc_load() == PT_OK;
}

static int load_locked(void) {
  void *h = NULL;
  char tried[256] = "";
  for (int i = 0; vk_names[i] && !h; i++) {
    h = lib_open(vk_names[i]);
    if (!h) snprintf(tried + strlen(tried), sizeof tried - strlen(tried), "%s%s", *tried ? ", " : "", vk_names[i]);
  }
  if (!h) {
    snprintf(vk_reason, sizeof vk_reason, "vulkan: no Vulkan loader found (tried %s: %s); install libvulkan1 and a driver "
             "(mesa-vulkan-drivers for the CPU's lavapipe)", tried, lib_err());
    return PT_EUNAVAILABLE;
  }
  vki.vkGetInstanceProcAddr = (PFN_vkGetInstanceProcAddr)lib_sym(h, "vkGetInstanceProcAddr");
  if (!vki.vkGetInstanceProcAddr) {
    snprintf(vk_reason, sizeof vk_reason, "vulkan: the loader exports no vkGetInstanceProcAddr");
    return PT_EUNAVAILABLE;
  }
#define GET_G(name, ret, args) vki.name = (ret(VKAPI_PTR *) args)vki.vkGetInstanceProcAddr(NULL, #name);
  PT_VK_GLOBAL(GET_G)
  uint32_t api = VK_MAKE_API_VERSION(0, 1, 0, 0);
  if (vki.vkEnumerateInstanceVersion) vki.vkEnumerateInstanceVersion(&api);
  if (!vki.vkCreateInstance || (VK_API_VERSION_MAJOR(api) == 1 && VK_API_VERSION_MINOR(api) < 2)) {
    snprintf(vk_reason, sizeof vk_reason, "vulkan: the loader supports Vulkan %u.%u; polytensor needs 1.2",
             VK_API_VERSION_MAJOR(api), VK_API_VERSION_MINOR(api));
    return PT_EUNAVAILABLE;
  }
  /* MoltenVK is listed only to instances that ask for portability devices. */
  const char *exts[1];
  uint32_t next = 0, nwant = 0;
  VkExtensionProperties ie[64];
  if (vki.vkEnumerateInstanceExtensionProperties(NULL, &next, NULL) == VK_SUCCESS && next <= 64 &&
      vki.vkEnumerateInstanceExtensionProperties(NULL, &next, ie) == VK_SUCCESS && has_ext(ie, next, "VK_KHR_portability_enumeration"))
    exts[nwant++] = "VK_KHR_portability_enumeration";
  VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .pApplicationName = "polytensor",
                           .pEngineName = "polytensor", .apiVersion = VK_MAKE_API_VERSION(0, 1, 2, 0)};
  VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app,
                              .enabledExtensionCount = nwant, .ppEnabledExtensionNames = exts,
                              .flags = nwant ? VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR : 0};
  VkResult r = vki.vkCreateInstance(&ici, NULL, &vk_instance);
  if (r != VK_SUCCESS) {
    snprintf(vk_reason, sizeof vk_reason, "vulkan: vkCreateInstance failed: %s (%d)%s", vk_result_name(r), r,
             r == VK_ERROR_INCOMPATIBLE_DRIVER ? " (no Vulkan driver is installed)" : "");
    return r == VK_ERROR_OUT_OF_HOST_MEMORY ? PT_EOOM : PT_EUNAVAILABLE;
  }
#define GET_I(name, ret, args) vki.name = (ret(VKAPI_PTR *) args)vki.vkGetInstanceProcAddr(vk_instance, #name);
  PT_VK_INSTANCE(GET_I)
#define CHECK_I(name, ret, args) if (!vki.name) missing = #name;
  const char *missing = NULL;
  PT_VK_INSTANCE(CHECK_I)
  if (missing) {
    snprintf(vk_reason, sizeof vk_reason, "vulkan: the loader lacks %s", missing);
    return PT_EUNAVAILABLE;
  }
  uint32_t n = 0;
  VkPhysicalDevice pds[VK_MAX_DEVICES];
  r = vki.vkEnumeratePhysicalDevices(vk_instance, &n, NULL);
  if (n > VK_MAX_DEVICES) n = VK_MAX_DEVICES;
  if (r == VK_SUCCESS || r == VK_INCOMPLETE) r = vki.vkEnumeratePhysicalDevices(vk_instance, &n, pds);
  if (r != VK_SUCCESS && r != VK_INCOMPLETE) {
    snprintf(vk_reason, sizeof vk_reason, "vulkan: vkEnumeratePhysicalDevices failed: %s (%d)", vk_result_name(r), r);
    return PT_EUNAVAILABLE;
  }
  for (uint32_t i = 0; i < n; i++) inspect(pds[i], &phys[i]);
  nphys = (int)n;
  if (n == 0) {
    snprintf(vk_reason, sizeof vk_reason, "vulkan: the loader reports no Vulkan device");
    return PT_EUNAVAILABLE;
  }
  return PT_OK;
}

int vk_load(void) {
  pt_mutex_lock(&lib_lock);
  if (!vk_tried) {
    vk_status = load_locked();
    vk_tried = 1;
  }
  int st = vk_status;
  pt_mutex_unlock(&lib_lock);
  return st == PT_OK ? PT_OK : pt_error(st, "%s", vk_reason);
}

int vk_phys_count(void) { return vk_load() == PT_OK ? nphys : 0; }
const vk_phys *vk_phys_get(int index) { return index >= 0 && index < nphys ? &phys[index] : NULL; }

static int shaderc_locked(void) {
  void *h = NULL;
  char tried[256] = "";
  for (int i = 0; shc_names[i] && !h; i++) {
    h = lib_open(shc_names[i]);
    if (!h) snprintf(tried + strlen(tried), sizeof tried - strlen(tried), "%s%s", *tried ? ", " : "", shc_names[i]);
  }
  if (!h) {
    snprintf(shc_reason, sizeof shc_reason, "vulkan: libshaderc is needed to compile GLSL and was not found (tried %s: %s); "
             "install libshaderc1 (Debian/Ubuntu) or the Vulkan SDK", tried, lib_err());
    return PT_EUNAVAILABLE;
  }
#define GET_S(name, ret, args) \
  if (!(shc.name = (ret(*) args)lib_sym(h, #name))) { \
    snprintf(shc_reason, sizeof shc_reason, "vulkan: libshaderc lacks %s", #name); \
    return PT_EUNAVAILABLE; \
  }
  PT_SHADERC_FUNCS(GET_S)
  unsigned v = 0, rev = 0;
  shc.shaderc_get_spv_version(&v, &rev);
  shc_ver = v * 1000u + rev;
  return PT_OK;
}

int shaderc_load(void) {
  pt_mutex_lock(&lib_lock);
  if (!shc_tried) {
    shc_status = shaderc_locked();
    shc_tried = 1;
  }
  int st = shc_status;
  pt_mutex_unlock(&lib_lock);
  return st == PT_OK ? PT_OK : pt_error(st, "%s", shc_reason);
}

unsigned shaderc_version(void) { return shc_ver; }
