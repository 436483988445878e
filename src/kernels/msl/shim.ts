/**
 * A host-side stand-in for MSL's `<metal_stdlib>`, so that rendered programs compile as
 * C++17 with g++ (test/msl_render.test.ts) and their numeric helpers can run on the host.
 * It defines the address-space keywords as nothing, MSL's scalar and vector type names,
 * as_type, the atomic and barrier functions (single-threaded: a barrier does nothing), and
 * the math built-ins the programs call (from <cmath>, whose float overloads are correctly
 * rounded or close). It checks syntax and C++ types only: address spaces, threadgroup
 * sharing and Metal's own arithmetic are not modelled, so passing here is not passing
 * the Metal compiler.
 */
export const MSL_HOST_SHIM = String.raw`#pragma once
#include <cmath>
#include <cstring>
#include <cstdint>
typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;
static_assert(sizeof(long) == 8, "MSL's long is 64-bit");
#define kernel
#define device
#define constant
#define thread
#define threadgroup
struct uint3 { uint x, y, z; };
namespace metal {
enum class mem_flags { mem_none = 0, mem_device = 1, mem_threadgroup = 2, mem_texture = 4 };
inline mem_flags operator|(mem_flags a, mem_flags b) { return (mem_flags)((int)a | (int)b); }
inline void threadgroup_barrier(mem_flags) {}
enum memory_order { memory_order_relaxed };
struct atomic_uint { uint v; };
inline bool atomic_compare_exchange_weak_explicit(atomic_uint *a, uint *expected, uint desired, memory_order, memory_order) {
  if (a->v == *expected) { a->v = desired; return true; }
  *expected = a->v;
  return false;
}
template <class T, class U> inline T as_type(U u) {
  static_assert(sizeof(T) == sizeof(U), "as_type needs equal sizes");
  T t;
  std::memcpy(&t, &u, sizeof t);
  return t;
}
inline uint mulhi(uint a, uint b) { return (uint)(((unsigned long long)a * b) >> 32); }
inline uint clz(uint x) { return x == 0 ? 32u : (uint)__builtin_clz(x); }
inline ulong clz(ulong x) { return x ? (ulong)__builtin_clzl(x) : 64ul; }
inline float cospi(float x) { return (float)std::cos(3.14159265358979323846 * (double)x); }
using std::fabs; using std::exp; using std::exp2; using std::log; using std::log2; using std::sin; using std::cos;
using std::tan; using std::tanh; using std::floor; using std::ceil; using std::rint; using std::trunc; using std::fmod;
using std::copysign; using std::pow; using std::sqrt; using std::fma; using std::ldexp; using std::isfinite;
using std::isinf; using std::isnan; using std::signbit; using std::asin; using std::acos; using std::atan; using std::atan2;
using std::sinh; using std::cosh; using std::asinh; using std::acosh; using std::atanh; using std::log10; using std::max; using std::min;
}
`;
