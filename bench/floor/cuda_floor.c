/* cuda_floor.c: the floor for polytensor's CUDA numbers. Plain C with no SDK: it declares
 * the few driver API and NVRTC types it uses, dlopens libcuda.so.1 and libnvrtc, and makes
 * the calls our shim makes (NVRTC compile, cuModuleLoadData, cuLaunchKernel on a stream,
 * cuStreamSynchronize, graphs, async copies). Wall-clock medians, each sample ending with
 * the device idle. Prints JSON {name: ms | GB/s | ns (names ending _ns), "_meta": {...}} on stdout.
 *   dispatch_overhead_small          256 x (16-element add launch), then stream sync
 *   launch_256_host_ms               the 256 cuLaunchKernel calls alone (host time)
 *   graph_replay_256                 the same 256 launches captured once, replay + sync
 *   add_256m (+ _gbps)               one vectorised launch c = a + b over 256M floats + sync
 *   dtod_copy_1gib (+ _gbps)         cuMemcpyDtoDAsync of 1 GiB + sync (GB/s counts read+write)
 *   deferred_alias_copy_materialize  one fused launch d = ((src+1)*2)-3, 262144 floats + sync
 *   fused_pointwise_1080p            clamp((x*1.15-0.02)*0.98, 0, 1) over 3x1080x1920 floats as
 *                                    one kernel + sync; _eager: as 4 kernels + sync
 * Host-side microcases, ns per call (1000 calls per sample, then a stream sync), the floors
 * of bench/micro.ts:
 *   mem_alloc_free_ns                cuMemAlloc + cuMemFree of 256 bytes (the driver path)
 *   mem_alloc_free_async_ns          cuMemAllocAsync + cuMemFreeAsync (the driver's pool: cached)
 *   event_record_ns                  cuEventRecord of one reused event
 *   event_create_record_destroy_ns   cuEventCreate + cuEventRecord + cuEventDestroy (as a fence)
 *   stream_sync_idle_ns              cuStreamSynchronize on an idle stream
 * Exit 2 when libcuda, libnvrtc or a device is missing; 1 when a call fails (the JSON then
 * holds what was measured and "_error"). Build: zig build floor (native/zig-out/bin). */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef void *CUcontext, *CUmodule, *CUfunction, *CUstream, *CUgraph, *CUgraphExec, *CUevent, *nvrtcProgram;

static CUresult (*cuInit)(unsigned);
static CUresult (*cuDriverGetVersion)(int *);
static CUresult (*cuGetErrorName)(CUresult, const char **);
static CUresult (*cuDeviceGet)(CUdevice *, int);
static CUresult (*cuDeviceGetName)(char *, int, CUdevice);
static CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
static CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
static CUresult (*cuCtxSetCurrent)(CUcontext);
static CUresult (*cuStreamCreate)(CUstream *, unsigned);
static CUresult (*cuStreamSynchronize)(CUstream);
static CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
static CUresult (*cuMemFree)(CUdeviceptr);
static CUresult (*cuMemAllocAsync)(CUdeviceptr *, size_t, CUstream);
static CUresult (*cuMemFreeAsync)(CUdeviceptr, CUstream);
static CUresult (*cuEventCreate)(CUevent *, unsigned);
static CUresult (*cuEventRecord)(CUevent, CUstream);
static CUresult (*cuEventDestroy)(CUevent);
static CUresult (*cuMemsetD32Async)(CUdeviceptr, unsigned, size_t, CUstream);
static CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
static CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
static CUresult (*cuModuleLoadData)(CUmodule *, const void *);
static CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
static CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                  CUstream, void **, void **);
static CUresult (*cuStreamBeginCapture)(CUstream, int);
static CUresult (*cuStreamEndCapture)(CUstream, CUgraph *);
static CUresult (*cuGraphInstantiateWithFlags)(CUgraphExec *, CUgraph, unsigned long long);
static CUresult (*cuGraphLaunch)(CUgraphExec, CUstream);
static int (*nvrtcVersion)(int *, int *);
static const char *(*nvrtcGetErrorString)(int);
static int (*nvrtcCreateProgram)(nvrtcProgram *, const char *, const char *, int, const char *const *, const char *const *);
static int (*nvrtcCompileProgram)(nvrtcProgram, int, const char *const *);
static int (*nvrtcGetProgramLogSize)(nvrtcProgram, size_t *);
static int (*nvrtcGetProgramLog)(nvrtcProgram, char *);
static int (*nvrtcGetPTXSize)(nvrtcProgram, size_t *);
static int (*nvrtcGetPTX)(nvrtcProgram, char *);
static int (*nvrtcDestroyProgram)(nvrtcProgram *);

#define SYM(lib, var, name) {lib, (void **)&var, name}
static const struct { int lib; void **fn; const char *name; } syms[] = {
    SYM(0, cuInit, "cuInit"), SYM(0, cuDriverGetVersion, "cuDriverGetVersion"), SYM(0, cuGetErrorName, "cuGetErrorName"),
    SYM(0, cuDeviceGet, "cuDeviceGet"), SYM(0, cuDeviceGetName, "cuDeviceGetName"),
    SYM(0, cuDeviceGetAttribute, "cuDeviceGetAttribute"), SYM(0, cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"),
    SYM(0, cuCtxSetCurrent, "cuCtxSetCurrent"), SYM(0, cuStreamCreate, "cuStreamCreate"),
    SYM(0, cuStreamSynchronize, "cuStreamSynchronize"), SYM(0, cuMemAlloc, "cuMemAlloc_v2"), SYM(0, cuMemFree, "cuMemFree_v2"),
    SYM(0, cuMemAllocAsync, "cuMemAllocAsync"), SYM(0, cuMemFreeAsync, "cuMemFreeAsync"),
    SYM(0, cuEventCreate, "cuEventCreate"), SYM(0, cuEventRecord, "cuEventRecord"), SYM(0, cuEventDestroy, "cuEventDestroy_v2"),
    SYM(0, cuMemsetD32Async, "cuMemsetD32Async"), SYM(0, cuMemcpyDtoH, "cuMemcpyDtoH_v2"),
    SYM(0, cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2"), SYM(0, cuModuleLoadData, "cuModuleLoadData"),
    SYM(0, cuModuleGetFunction, "cuModuleGetFunction"), SYM(0, cuLaunchKernel, "cuLaunchKernel"),
    SYM(0, cuStreamBeginCapture, "cuStreamBeginCapture_v2"), SYM(0, cuStreamEndCapture, "cuStreamEndCapture"),
    SYM(0, cuGraphInstantiateWithFlags, "cuGraphInstantiateWithFlags"), SYM(0, cuGraphLaunch, "cuGraphLaunch"),
    SYM(1, nvrtcVersion, "nvrtcVersion"), SYM(1, nvrtcGetErrorString, "nvrtcGetErrorString"),
    SYM(1, nvrtcCreateProgram, "nvrtcCreateProgram"), SYM(1, nvrtcCompileProgram, "nvrtcCompileProgram"),
    SYM(1, nvrtcGetProgramLogSize, "nvrtcGetProgramLogSize"), SYM(1, nvrtcGetProgramLog, "nvrtcGetProgramLog"),
    SYM(1, nvrtcGetPTXSize, "nvrtcGetPTXSize"), SYM(1, nvrtcGetPTX, "nvrtcGetPTX"),
    SYM(1, nvrtcDestroyProgram, "nvrtcDestroyProgram"),
};

static const char *src =
    "extern \"C\" __global__ void add(const float*a,const float*b,float*c,int n){\n"
    "  int i=blockIdx.x*blockDim.x+threadIdx.x; if(i<n) c[i]=a[i]+b[i]; }\n"
    "extern \"C\" __global__ void add4(const float4*__restrict__ a,const float4*__restrict__ b,float4*__restrict__ c,long long n){\n"
    "  long long i=(long long)blockIdx.x*blockDim.x+threadIdx.x; if(i>=n) return;\n"
    "  float4 x=a[i], y=b[i], r; r.x=x.x+y.x; r.y=x.y+y.y; r.z=x.z+y.z; r.w=x.w+y.w; c[i]=r; }\n"
    "extern \"C\" __global__ void fused(const float*s,float*d,int n){\n"
    "  int i=blockIdx.x*blockDim.x+threadIdx.x; if(i<n) d[i]=((s[i]+1.0f)*2.0f)-3.0f; }\n"
    "extern \"C\" __global__ void chain(const float*s,float*d,int n){\n"
    "  int i=blockIdx.x*blockDim.x+threadIdx.x; if(i<n) d[i]=fminf(fmaxf(((s[i]*1.15f)+-0.02f)*0.98f,0.0f),1.0f); }\n"
    "extern \"C\" __global__ void step(const float*s,float*d,int n,int op,float c){\n"
    "  int i=blockIdx.x*blockDim.x+threadIdx.x; if(i>=n) return; float x=s[i];\n"
    "  d[i]= op==0 ? x*c : op==1 ? x+c : fminf(fmaxf(x,0.0f),1.0f); }\n";

/* ----- results: printed as JSON on every exit path */
static char meta[512] = "{}";
static struct { const char *name; double v; } res[32];
static int nres;
static void put(const char *name, double v) { res[nres].name = name, res[nres++].v = v; }
static void finish(int code, const char *err) {
  printf("{\n \"_meta\": %s", meta);
  for (int i = 0; i < nres; i++) printf(",\n \"%s\": %.6g", res[i].name, res[i].v);
  if (err) printf(",\n \"_error\": \"%s\"", err);
  printf("\n}\n");
  if (err) fprintf(stderr, "cuda_floor: %s\n", err);
  exit(code);
}
static char msg[1024];
static void cufail(const char *what, CUresult r) {
  const char *n = "?";
  if (cuGetErrorName) cuGetErrorName(r, &n);
  snprintf(msg, sizeof msg, "%s failed: %s (%d)", what, n, r);
  finish(r == 100 ? 2 : 1, msg); /* 100: CUDA_ERROR_NO_DEVICE */
}
#define CU(call) do { CUresult r_ = (call); if (r_) cufail(#call, r_); } while (0)
#define NV(call) do { int r_ = (call); if (r_) { snprintf(msg, sizeof msg, "%s failed: %s", #call, nvrtcGetErrorString(r_)); finish(1, msg); } } while (0)

static void *open_first(const char *const *names, const char *const *globs, const char **found) {
  for (; *names; names++) {
    void *h = dlopen(*names, RTLD_NOW | RTLD_GLOBAL);
    if (h) return *found = *names, h;
  }
  for (; globs && *globs; globs++) {
    glob_t g;
    if (glob(*globs, 0, NULL, &g) != 0) continue;
    for (size_t i = g.gl_pathc; i-- > 0;) { /* highest version first */
      void *h = dlopen(g.gl_pathv[i], RTLD_NOW | RTLD_GLOBAL);
      if (h) return *found = strdup(g.gl_pathv[i]), globfree(&g), h;
    }
    globfree(&g);
  }
  return NULL;
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }
static double median(double *t, int n) {
  qsort(t, n, sizeof *t, cmp);
  return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

static CUstream st;
static CUfunction k_add, k_add4, k_fused, k_chain, k_step;
/* Copies n floats at offset `at` back and checks each equals want. */
static void expect(CUdeviceptr p, size_t at, size_t n, float want, const char *what) {
  static float h[4096];
  CU(cuStreamSynchronize(st));
  CU(cuMemcpyDtoH(h, p + at * sizeof(float), n * sizeof(float)));
  for (size_t i = 0; i < n; i++)
    if (h[i] != want) {
      snprintf(msg, sizeof msg, "check failed: %s[%zu] = %g, want %g", what, at + i, h[i], want);
      finish(1, msg);
    }
}
static CUdeviceptr filled(size_t n, float v) {
  CUdeviceptr p;
  unsigned bits;
  memcpy(&bits, &v, 4);
  CU(cuMemAlloc(&p, n * sizeof(float)));
  CU(cuMemsetD32Async(p, bits, n, st));
  return p;
}

int main(void) {
  static const char *const cuda_names[] = {"libcuda.so.1", "libcuda.so", NULL};
  static const char *const nvrtc_names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so", NULL};
  static const char *const nvrtc_globs[] = {
      "/usr/local/lib/python3*/dist-packages/nvidia/cu13/lib/libnvrtc.so*",
      "/usr/local/lib/python3*/dist-packages/nvidia/cuda_nvrtc/lib/libnvrtc.so*",
      "/usr/local/lib/python3*/site-packages/nvidia/cu13/lib/libnvrtc.so*",
      "/usr/local/lib/python3*/site-packages/nvidia/cuda_nvrtc/lib/libnvrtc.so*",
      "/usr/lib/python3/dist-packages/nvidia/cu13/lib/libnvrtc.so*",
      "/usr/lib/python3/dist-packages/nvidia/cuda_nvrtc/lib/libnvrtc.so*", NULL};
  const char *cuda_lib = NULL, *nvrtc_lib = NULL;
  void *lib[2];
  if (!(lib[0] = open_first(cuda_names, NULL, &cuda_lib))) finish(2, "libcuda.so.1 not found (no NVIDIA driver here)");
  if (!(lib[1] = open_first(nvrtc_names, nvrtc_globs, &nvrtc_lib)))
    finish(2, "libnvrtc not found (tried libnvrtc.so.13, .so.12, .so and the pip wheel paths)");
  for (size_t i = 0; i < sizeof syms / sizeof *syms; i++)
    if (!(*syms[i].fn = dlsym(lib[syms[i].lib], syms[i].name))) {
      snprintf(msg, sizeof msg, "%s lacks %s", syms[i].lib ? nvrtc_lib : cuda_lib, syms[i].name);
      finish(2, msg);
    }

  CUdevice dev;
  CUcontext ctx;
  char name[256] = "";
  int drv = 0, major = 0, minor = 0, nv_major = 0, nv_minor = 0;
  CU(cuInit(0));
  CU(cuDriverGetVersion(&drv));
  CU(cuDeviceGet(&dev, 0));
  CU(cuDeviceGetName(name, sizeof name, dev));
  CU(cuDeviceGetAttribute(&major, 75, dev)); /* COMPUTE_CAPABILITY_MAJOR */
  CU(cuDeviceGetAttribute(&minor, 76, dev));
  NV(nvrtcVersion(&nv_major, &nv_minor));
  snprintf(meta, sizeof meta, "{\"device\": \"%s\", \"cc\": \"%d.%d\", \"driver\": %d, \"nvrtc\": \"%d.%d\", \"nvrtc_lib\": \"%s\"}",
           name, major, minor, drv, nv_major, nv_minor, nvrtc_lib);
  CU(cuDevicePrimaryCtxRetain(&ctx, dev));
  CU(cuCtxSetCurrent(ctx));
  CU(cuStreamCreate(&st, 1)); /* CU_STREAM_NON_BLOCKING */

  /* NVRTC: PTX for this device's compute capability, no fma contraction (as the shim). */
  char arch[64];
  snprintf(arch, sizeof arch, "--gpu-architecture=compute_%d%d", major, minor);
  const char *opts[] = {arch, "--fmad=false"};
  nvrtcProgram prog;
  double t0 = now_ms();
  NV(nvrtcCreateProgram(&prog, src, "floor.cu", 0, NULL, NULL));
  int rc = nvrtcCompileProgram(prog, 2, opts);
  size_t n;
  if (rc) {
    static char log[8192];
    nvrtcGetProgramLogSize(prog, &n);
    if (n < sizeof log) nvrtcGetProgramLog(prog, log);
    snprintf(msg, sizeof msg, "nvrtcCompileProgram: %s: %.600s", nvrtcGetErrorString(rc), log);
    for (char *c = msg; *c; c++) if (*c == '"' || *c == '\\' || *c == '\n') *c = ' ';
    finish(1, msg);
  }
  NV(nvrtcGetPTXSize(prog, &n));
  char *ptx = malloc(n);
  NV(nvrtcGetPTX(prog, ptx));
  put("nvrtc_compile_ms", now_ms() - t0);
  NV(nvrtcDestroyProgram(&prog));
  CUmodule mod;
  CU(cuModuleLoadData(&mod, ptx));
  CU(cuModuleGetFunction(&k_add, mod, "add"));
  CU(cuModuleGetFunction(&k_add4, mod, "add4"));
  CU(cuModuleGetFunction(&k_fused, mod, "fused"));
  CU(cuModuleGetFunction(&k_chain, mod, "chain"));
  CU(cuModuleGetFunction(&k_step, mod, "step"));

  enum { S = 50, SB = 20, L = 256 };
  double t[S], h[S];
  /* (a) dispatch: 256 launches of a 16-element add, then sync */
  int small = 16;
  CUdeviceptr a = filled(small, 1.0f), b = filled(small, 2.0f), c = filled(small, 0.0f);
  void *args[] = {&a, &b, &c, &small};
  for (int s = -5; s < S; s++) {
    double t1 = now_ms();
    for (int i = 0; i < L; i++) CU(cuLaunchKernel(k_add, 1, 1, 1, 32, 1, 1, 0, st, args, NULL));
    double t2 = now_ms();
    CU(cuStreamSynchronize(st));
    if (s >= 0) t[s] = now_ms() - t1, h[s] = t2 - t1;
  }
  expect(c, 0, small, 3.0f, "small add");
  put("dispatch_overhead_small", median(t, S));
  put("launch_256_host_ms", median(h, S));

  /* (b) the same 256 launches captured once into a graph: replay + sync */
  CUgraph graph;
  CUgraphExec exec;
  CU(cuStreamBeginCapture(st, 0)); /* CU_STREAM_CAPTURE_MODE_GLOBAL */
  for (int i = 0; i < L; i++) CU(cuLaunchKernel(k_add, 1, 1, 1, 32, 1, 1, 0, st, args, NULL));
  CU(cuStreamEndCapture(st, &graph));
  CU(cuGraphInstantiateWithFlags(&exec, graph, 0));
  CU(cuMemsetD32Async(c, 0, small, st));
  for (int s = -5; s < S; s++) {
    double t1 = now_ms();
    CU(cuGraphLaunch(exec, st));
    CU(cuStreamSynchronize(st));
    if (s >= 0) t[s] = now_ms() - t1;
  }
  expect(c, 0, small, 3.0f, "graph add");
  put("graph_replay_256", median(t, S));

  /* (e) one fused launch for deferred_alias_copy_materialize's expression */
  int na = 262144;
  CUdeviceptr fs = filled(na, 1.25f), fd = filled(na, 0.0f);
  void *fargs[] = {&fs, &fd, &na};
  for (int s = -5; s < S; s++) {
    double t1 = now_ms();
    CU(cuLaunchKernel(k_fused, na / 256, 1, 1, 256, 1, 1, 0, st, fargs, NULL));
    CU(cuStreamSynchronize(st));
    if (s >= 0) t[s] = now_ms() - t1;
  }
  expect(fd, 0, 4096, 1.5f, "fused");
  expect(fd, na - 4096, 4096, 1.5f, "fused");
  put("deferred_alias_copy_materialize", median(t, S));
  CU(cuMemFree(fs));
  CU(cuMemFree(fd));

  /* (f) fused_pointwise_1080p's chain clamp((x * 1.15 - 0.02) * 0.98, 0, 1) over 3x1080x1920
   * floats: as one kernel + sync, and as its 4 eager steps (each a kernel into a new buffer)
   * + sync. Their ratio is the most any library can gain by fusing this chain on this host. */
  int np = 3 * 1080 * 1920;
  unsigned gp = (unsigned)((np + 255) / 256);
  CUdeviceptr px = filled(np, 0.5f), pt[4];
  for (int k = 0; k < 4; k++) pt[k] = filled(np, 0.0f);
  void *cargs[] = {&px, &pt[3], &np};
  for (int s = -5; s < S; s++) {
    double t1 = now_ms();
    CU(cuLaunchKernel(k_chain, gp, 1, 1, 256, 1, 1, 0, st, cargs, NULL));
    CU(cuStreamSynchronize(st));
    if (s >= 0) t[s] = now_ms() - t1;
  }
  put("fused_pointwise_1080p", median(t, S));
  int sop[4] = {0, 1, 0, 2};
  float sc[4] = {1.15f, -0.02f, 0.98f, 0.0f};
  for (int s = -5; s < S; s++) {
    double t1 = now_ms();
    for (int k = 0; k < 4; k++) {
      CUdeviceptr *from = k ? &pt[k - 1] : &px;
      void *sargs[] = {from, &pt[k], &np, &sop[k], &sc[k]};
      CU(cuLaunchKernel(k_step, gp, 1, 1, 256, 1, 1, 0, st, sargs, NULL));
    }
    CU(cuStreamSynchronize(st));
    if (s >= 0) t[s] = now_ms() - t1;
  }
  put("fused_pointwise_1080p_eager", median(t, S));
  float want = ((0.5f * 1.15f) + -0.02f) * 0.98f; /* inside [0, 1]: the clamp keeps it */
  expect(pt[3], (size_t)np - 4096, 4096, want, "chain eager");
  CU(cuLaunchKernel(k_chain, gp, 1, 1, 256, 1, 1, 0, st, cargs, NULL));
  expect(pt[3], 0, 4096, want, "chain fused");
  CU(cuMemFree(px));
  for (int k = 0; k < 4; k++) CU(cuMemFree(pt[k]));

  /* (c) add_256m: one vectorised launch over 256M floats (3 GiB of traffic) + sync */
  size_t nb = (size_t)256 << 20;
  long long n4 = (long long)(nb / 4);
  CUdeviceptr A = filled(nb, 1.0f), B = filled(nb, 2.0f), C = filled(nb, 0.0f);
  void *bargs[] = {&A, &B, &C, &n4};
  for (int s = -3; s < SB; s++) {
    double t1 = now_ms();
    CU(cuLaunchKernel(k_add4, (unsigned)(n4 / 256), 1, 1, 256, 1, 1, 0, st, bargs, NULL));
    CU(cuStreamSynchronize(st));
    if (s >= 0) t[s] = now_ms() - t1;
  }
  for (size_t at = 0; at < nb; at += nb / 2 - 2048) expect(C, at, 4096, 3.0f, "add_256m c");
  double ms = median(t, SB), gib = (double)(1 << 30);
  put("add_256m", ms);
  put("add_256m_gbps", 3 * gib / (ms * 1e6));

  /* (d) device-to-device copy of 1 GiB (a -> c) + sync; GB/s counts the read and the write */
  for (int s = -3; s < SB; s++) {
    double t1 = now_ms();
    CU(cuMemcpyDtoDAsync(C, A, nb * sizeof(float), st));
    CU(cuStreamSynchronize(st));
    if (s >= 0) t[s] = now_ms() - t1;
  }
  expect(C, nb - 4096, 4096, 1.0f, "copy");
  ms = median(t, SB);
  put("dtod_copy_1gib", ms);
  put("dtod_copy_1gib_gbps", 2 * gib / (ms * 1e6));
  CU(cuMemFree(A));
  CU(cuMemFree(B));
  CU(cuMemFree(C));

  /* (f) host-side microcases, last: a driver without memory pools fails here, after the rest */
  enum { N = 1000 };
  CUdeviceptr p;
  CUevent ev;
  CU(cuEventCreate(&ev, 0));
#define MICRO(key, body)                                        \
  for (int s = -3; s < S; s++) {                                \
    double t1 = now_ms();                                       \
    for (int i = 0; i < N; i++) { body; }                       \
    CU(cuStreamSynchronize(st));                                \
    if (s >= 0) t[s] = now_ms() - t1;                           \
  }                                                             \
  put(key, median(t, S) * 1e6 / N)
  MICRO("mem_alloc_free_ns", CU(cuMemAlloc(&p, 256)); CU(cuMemFree(p)));
  MICRO("mem_alloc_free_async_ns", CU(cuMemAllocAsync(&p, 256, st)); CU(cuMemFreeAsync(p, st)));
  MICRO("event_record_ns", CU(cuEventRecord(ev, st)));
  MICRO("event_create_record_destroy_ns", CUevent e; CU(cuEventCreate(&e, 0)); CU(cuEventRecord(e, st)); CU(cuEventDestroy(e)));
  MICRO("stream_sync_idle_ns", CU(cuStreamSynchronize(st)));
  finish(0, NULL);
}
