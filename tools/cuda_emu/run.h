
// Runs pt_main over a grid: 256 fibers a block, one OS thread. Warps run in a random
// order, each as far as it can (through warp barriers) before the next, which is the
// most hostile schedule for a missing block barrier; barriers must be reached uniformly.
#include <random>
#include <algorithm>
static void (*g_entry_fn)();
static void emu_entry() { g_entry_fn(); g_f[g_cur].state = 3; }
template <class P, class F> void emu_launch(F kernel, const P &p, unsigned grid) {
  static F k;
  static const P *pp;
  k = kernel;
  pp = &p;
  g_entry_fn = [] { k(*pp); };
  gridDim = {grid, 1, 1};
  std::mt19937 rng(grid * 7919u + 1);
  for (int t = 0; t < 256; t++) if (!g_f[t].stack) g_f[t].stack = (char *)malloc(1 << 17);
  for (unsigned b = 0; b < grid; b++) {
    blockIdx = {b, 0, 0};
    for (int t = 0; t < 256; t++) {
      getcontext(&g_f[t].ctx);
      g_f[t].ctx.uc_stack.ss_sp = g_f[t].stack;
      g_f[t].ctx.uc_stack.ss_size = 1 << 17;
      g_f[t].ctx.uc_link = &g_sched;
      makecontext(&g_f[t].ctx, emu_entry, 0);
      g_f[t].state = 0;
    }
    for (;;) {
      int order[8] = {0, 1, 2, 3, 4, 5, 6, 7};
      std::shuffle(order, order + 8, rng);
      for (int wi = 0; wi < 8; wi++) {
        int w = order[wi];
        for (;;) {
          bool rev = rng() & 1;
          for (int l = 0; l < 32; l++) {
            int t = w * 32 + (rev ? 31 - l : l);
            if (g_f[t].state != 0) continue;
            g_cur = t;
            threadIdx = {(unsigned)t, 0, 0};
            swapcontext(&g_sched, &g_f[t].ctx);
          }
          int c[4] = {0, 0, 0, 0};
          for (int l = 0; l < 32; l++) c[g_f[w * 32 + l].state]++;
          if (c[1] == 32) { for (int l = 0; l < 32; l++) g_f[w * 32 + l].state = 0; continue; }
          if (c[1] != 0) { fprintf(stderr, "warp %d: divergent __syncwarp (block %u)\n", w, b); abort(); }
          break;
        }
      }
      int c[4] = {0, 0, 0, 0};
      for (int t = 0; t < 256; t++) c[g_f[t].state]++;
      if (c[3] == 256) break;
      if (c[2] != 256) { fprintf(stderr, "block %u: divergent __syncthreads (%d at it, %d done)\n", b, c[2], c[3]); abort(); }
      g_barriers++;
      for (int t = 0; t < 256; t++) g_f[t].state = 0;
    }
  }
}
