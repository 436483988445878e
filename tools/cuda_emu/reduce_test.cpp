#include "shim.h"
namespace oldk {
#define pt_main pt_main_old
#include OLD
#undef pt_main
}
namespace newk {
#include NEW
}
#include "run.h"
#include <algorithm>
#include <cstdio>
#include <random>
using namespace newk;
static int esz(int dt) { return dt == PT_F64 || dt == PT_I64 ? 8 : dt == PT_F32 || dt == PT_I32 ? 4 : dt == PT_F16 || dt == PT_BF16 ? 2 : 1; }
static bool isf(int dt) { return dt <= PT_F64; }
static int outdt(int op, int dt) {
  switch (op) {
  case 0: case 1: return isf(dt) ? dt : PT_I64;
  case 8: case 9: case 10: return isf(dt) ? dt : PT_F32;
  case 4: case 5: case 11: return PT_I64;
  case 6: case 7: return PT_BOOL;
  default: return dt;
  }
}
static int fails = 0, cases = 0;
static double maxrel = 0;
// reduce a contiguous tensor of `shape` (after in_off elements) over `axes`.
static void run(int op, int dt, std::vector<long> shape, std::vector<int> axes, long in_off, unsigned seed, double ddof = 1) {
  int rank = shape.size(), E = esz(dt);
  long numel = 1;
  for (long s : shape) numel *= s;
  std::vector<long> st(rank);
  for (int d = rank - 1, acc = 1; d >= 0; d--) { st[d] = acc; acc *= shape[d]; }
  std::vector<unsigned char> in((numel + in_off) * E + 16);
  std::mt19937_64 rng(seed);
  for (long i = 0; i < numel + in_off; i++) {
    unsigned char *q = in.data() + i * E;
    long r = (long)(rng() % 9) - 4;
    int sp = rng() % 64;
    switch (dt) {
    case PT_F32: { float f = (float)r * 0.37f + (float)(rng() % 1000) * 1e-3f; if (sp == 0) f = NAN; if (sp == 1) f = -0.0f; if (sp == 2) f = 0; memcpy(q, &f, 4); break; }
    case PT_F64: { double f = r * 0.37 + (rng() % 1000) * 1e-3; if (sp == 0) f = NAN; if (sp == 2) f = 0; memcpy(q, &f, 8); break; }
    case PT_F16: case PT_BF16: { uint16_t h = dt == PT_F16 ? pt_f32_to_f16((float)r * 0.25f) : pt_f32_to_bf16((float)r * 0.25f); if (sp == 0) h = 0x7e00; memcpy(q, &h, 2); break; }
    case PT_I32: { int v = (int)r * 1000003; memcpy(q, &v, 4); break; }
    case PT_I64: { long long v = r * 1000000007LL; if (sp == 1) v = INT64_MAX; memcpy(q, &v, 8); break; }
    case PT_U8: *q = (unsigned char)(r & 7) * (sp != 3); break;
    default: *q = (r & 1) != 0; break;
    }
  }
  std::vector<int> outer;
  for (int d = 0; d < rank; d++) if (std::find(axes.begin(), axes.end(), d) == axes.end()) outer.push_back(d);
  long onum = 1;
  for (int d : outer) onum *= shape[d];
  int od = outdt(op, dt), OE = esz(od);
  std::vector<unsigned char> out1(onum * OE + 8, 0xcd), out2(onum * OE + 8, 0xcd);
  pt_params p;
  memset(&p, 0, sizeof p);
  long long err1[4] = {0}, err2[4] = {0};
  double *a = p.a;
  a[0] = op; a[1] = ddof; a[2] = outer.size();
  for (int d = 0; d < 8; d++) a[3 + d] = d < (int)outer.size() ? shape[outer[d]] : 1;
  a[11] = axes.size();
  for (int d = 0; d < 8; d++) a[12 + d] = d < (int)axes.size() ? shape[axes[d]] : 1;
  a[20] = 0; a[21] = dt; a[22] = in_off;
  for (int d = 0; d < 8; d++) a[23 + d] = d < (int)outer.size() ? st[outer[d]] : 0;
  for (int d = 0; d < 8; d++) a[31 + d] = d < (int)axes.size() ? st[axes[d]] : 0;
  a[39] = 1; a[40] = od; a[41] = 0;
  std::vector<long> ost(outer.size());
  for (int d = (int)outer.size() - 1, acc = 1; d >= 0; d--) { ost[d] = acc; acc *= shape[outer[d]]; }
  for (int d = 0; d < 8; d++) a[42 + d] = d < (int)outer.size() ? ost[d] : 0;
  p.nargs = 50; p.nbuf = 2;
  p.buf[0] = (unsigned long long)in.data();
  unsigned grid = (unsigned)std::min<long>(onum, 65535);
  p.buf[1] = (unsigned long long)out1.data(); p.err = (unsigned long long)err1;
  oldk::pt_params q; memcpy(&q, &p, sizeof q); emu_launch(oldk::pt_main_old, q, grid);
  p.buf[1] = (unsigned long long)out2.data(); p.err = (unsigned long long)err2;
  emu_launch(pt_main, p, grid);
  long bad = 0;
  double rel = 0;
  for (long i = 0; i < onum; i++) {
    const unsigned char *x = out1.data() + i * OE, *y = out2.data() + i * OE;
    if (memcmp(x, y, OE) == 0) continue;
    if (isf(od)) {
      double u = od == PT_F32 ? (double)*(const float *)x : od == PT_F64 ? *(const double *)x : od == PT_F16 ? pt_f16_to_f32(*(const uint16_t *)x) : pt_bf16_to_f32(*(const uint16_t *)x);
      double v = od == PT_F32 ? (double)*(const float *)y : od == PT_F64 ? *(const double *)y : od == PT_F16 ? pt_f16_to_f32(*(const uint16_t *)y) : pt_bf16_to_f32(*(const uint16_t *)y);
      double r = fabs(u - v) / std::max(1e-300, std::max(fabs(u), fabs(v)));
      bool sumlike = op == 0 || op == 8;
      double tol = od == PT_F64 ? 1e-12 : od == PT_F32 ? 1e-6 : 1e-2;
      if (sumlike && r <= tol) { rel = std::max(rel, r); continue; }
      if (bad++ < 2) printf("  out %ld: old %.17g new %.17g\n", i, u, v);
    } else if (bad++ < 2) printf("  out %ld differs (bytes)\n", i);
  }
  maxrel = std::max(maxrel, rel);
  cases++;
  if (bad || err1[0] != err2[0]) {
    fails++;
    printf("FAIL op %d dt %d shape[", op, dt);
    for (long s : shape) printf(" %ld", s);
    printf(" ] axes[");
    for (int x : axes) printf(" %d", x);
    printf(" ] off %ld: %ld differ, err %lld/%lld\n", in_off, bad, err1[0], err2[0]);
  }
}
int main() {
  unsigned seed = 1;
  for (int op = 0; op < 12; op++) for (int dt = 0; dt < 8; dt++) {
    for (long off = 0; off < 3; off++) run(op, dt, {3, 1000}, {1}, off * 3 + (op & 1), seed++);
    run(op, dt, {2, 5}, {1}, 1, seed++);
    run(op, dt, {70, 3}, {0}, 0, seed++);
    run(op, dt, {4, 6, 50}, {1, 2}, 2, seed++);
    run(op, dt, {4, 6, 50}, {0, 2}, 0, seed++);
    run(op, dt, {5000}, {0}, 1, seed++);
    if (op != 2 && op != 3 && op != 4 && op != 5) run(op, dt, {3, 0}, {1}, 0, seed++);
  }
  run(0, PT_F32, {4, 16384}, {1}, 0, seed++);
  run(11, PT_BOOL, {4, 16384}, {1}, 0, seed++);
  run(0, PT_F64, {1, 1024}, {1}, 0, seed++);
  run(0, PT_I64, {1, 1024}, {1}, 0, seed++);
  printf("%d cases, %d failed; sum/mean max relative difference %.3g\n", cases, fails, maxrel);
  return fails != 0;
}
