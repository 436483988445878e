// Host emulation of the CUDA built-ins the sort and reduce templates use: a block is 256
// fibers on one OS thread (run.h schedules them); __syncthreads and __syncwarp are barriers.
#include <cmath>
#include <cstring>
#include <cstdint>
#include <math.h>
#include <string.h>
#include <stdint.h>
#include <vector>
#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__ static
#define __launch_bounds__(...)
struct pt_dim3 { unsigned x, y, z; };
pt_dim3 threadIdx, blockIdx;
pt_dim3 blockDim = {256, 1, 1}, gridDim = {1, 1, 1};
#include <ucontext.h>
#include <stdio.h>
#include <stdlib.h>
struct emu_fiber { ucontext_t ctx; int state; char *stack; };
static emu_fiber g_f[256];
static ucontext_t g_sched;
static int g_cur;
static unsigned long long g_xchg[256];
static long g_barriers = 0;
static void emu_yield(int state) { g_f[g_cur].state = state; swapcontext(&g_f[g_cur].ctx, &g_sched); }
inline void __syncthreads() { emu_yield(2); }
inline void __syncwarp(unsigned = 0xffffffffu) { emu_yield(1); }
template <class T> T pt_shfl_down(T v, int d) {
  unsigned t = threadIdx.x;
  memcpy(&g_xchg[t], &v, 8);
  __syncwarp();
  T r = v;
  if ((t & 31) + d < 32) memcpy(&r, &g_xchg[t + d], 8);
  __syncwarp();
  return r;
}
inline double __shfl_down_sync(unsigned, double v, int d) { return pt_shfl_down(v, d); }
inline long long __shfl_down_sync(unsigned, long long v, int d) { return pt_shfl_down(v, d); }
template <class T, class U> static T pt_bits(U u) { T t; memcpy(&t, &u, sizeof t); return t; }
static float __int_as_float(int x) { return pt_bits<float>(x); }
static float __uint_as_float(unsigned x) { return pt_bits<float>(x); }
static unsigned __float_as_uint(float x) { return pt_bits<unsigned>(x); }
static double __longlong_as_double(long long x) { return pt_bits<double>(x); }
static long long __double_as_longlong(double x) { return pt_bits<long long>(x); }
static unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
static int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
static float __fadd_rn(float a, float b) { return a + b; }
static float __fsub_rn(float a, float b) { return a - b; }
static float __fmul_rn(float a, float b) { return a * b; }
static float __fdiv_rn(float a, float b) { return a / b; }
static float __fsqrt_rn(float a) { return sqrtf(a); }
static double __dadd_rn(double a, double b) { return a + b; }
static double __dsub_rn(double a, double b) { return a - b; }
static double __dmul_rn(double a, double b) { return a * b; }
static double __ddiv_rn(double a, double b) { return a / b; }
static double __dsqrt_rn(double a) { return sqrt(a); }
inline unsigned long long atomicCAS(unsigned long long *p, unsigned long long e, unsigned long long v) {
  return __atomic_compare_exchange_n(p, &e, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST) ? e : e;
}
