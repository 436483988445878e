/* blas.c: matmul through cuBLAS, when the product fits its column-major GEMM.
 *
 * Ownership and ordering. Each ctx owns at most one cuBLAS handle, made on the first
 * matmul that can use it (cuBLAS is large and slow to load; inventory only looks for it)
 * and destroyed by shutdown before the primary context is released. A handle is not safe
 * for two threads at once, and its stream is handle state, so ctx->lock is held from
 * cublasSetStream to the last GEMM of a launch; the GEMMs only queue work, so the lock is
 * short. The work runs on the launch's queue, in order with the other kernels there.
 * Default math mode: fp32 stays fp32 (no TF32) unless the block allows TF32, fp64 stays fp64;
 * f16 and bf16 accumulate in f32 through GemmEx (optional: without it their kernel runs).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cuda.h"

#define MAX_LOOP 4096 /* batches that cuBLAS may run one call each; more go to the kernel */

/* A matrix of R x C elements with strides rs, cs as cuBLAS sees it: col = 1 if column-major
 * (element (r, c) at r + c*ld), 0 if row-major (r*ld + c). A dim of 1 has no stride to obey. */
typedef struct { int col; int64_t ld, off, bstride; int buf; } mat;

static int layout(int64_t R, int64_t C, int64_t rs, int64_t cs, mat *m) {
  int64_t r1 = R > 1 ? R : 1, c1 = C > 1 ? C : 1;
  if (cs == 1 || C == 1) {
    int64_t ld = R == 1 ? c1 : rs;
    if (ld >= c1 && ld <= INT_MAX) { m->col = 0; m->ld = ld; return 1; }
  }
  if (rs == 1 || R == 1) {
    int64_t ld = C == 1 ? r1 : cs;
    if (ld >= r1 && ld <= INT_MAX) { m->col = 1; m->ld = ld; return 1; }
  }
  return 0;
}

/* The one stride that steps through all batches in row-major order, if there is one. */
static int uniform(const pt_matmul_plan *mm, int i, int64_t *stride) {
  int64_t s = 0, expect = 0;
  int first = 1;
  for (int d = mm->brank - 1; d >= 0; d--) {
    if (mm->bshape[d] == 1) continue;
    if (!first && mm->bstride[i][d] != expect) return 0;
    if (first) s = mm->bstride[i][d];
    first = 0;
    expect = mm->bstride[i][d] * mm->bshape[d];
  }
  *stride = s;
  return s >= 0;
}

static int64_t batch_offset(const pt_matmul_plan *mm, int i, int64_t b) {
  int64_t off = 0;
  for (int d = mm->brank - 1; d >= 0; d--) {
    off += (b % mm->bshape[d]) * mm->bstride[i][d];
    b /= mm->bshape[d];
  }
  return off;
}

static int blas_error(const char *fn, cublasStatus_t s) {
  const char *text = cublas.GetStatusString ? cublas.GetStatusString(s) : NULL;
  return pt_error(PT_EDRIVER, GPU_TAG ": %s failed: %s (%d)", fn, text ? text : GPU_BLAS " status", s);
}

/* Under ctx->lock. */
static int handle(cuda_ctx *c) {
  if (c->blas_state == 0) {
    c->blas_state = cublas_load();
    if (c->blas_state == PT_OK) {
      cublasStatus_t s = cublas.Create(&c->blas);
      if (s == CUBLAS_STATUS_SUCCESS) s = GPU_BLAS_DEFAULT_MATH(c->blas);
      c->blas_state = s == CUBLAS_STATUS_SUCCESS ? 1 : blas_error(BLAS_NAME(Create), s);
    }
  }
  return c->blas_state;
}

/* Which call a product takes: f32 and f64 their own GEMMs (fp32 exact unless the block
 * allows TF32), f16 and bf16 GemmEx with f32 accumulation, as PyTorch's. */
typedef struct { int ex, type, compute; size_t es; } gemm_kind;

static int gemm_kind_of(const pt_matmul_plan *mm, gemm_kind *g) {
  int has_ex = cublas.GemmEx && cublas.GemmStridedBatchedEx;
  *g = (gemm_kind){0, BLAS_R_32F, GPU_BLAS_COMPUTE_32F, 4};
  switch (mm->dtype) {
  case PT_F32: g->ex = mm->tf32 && has_ex; g->compute = g->ex ? GPU_BLAS_COMPUTE_TF32 : GPU_BLAS_COMPUTE_32F; return 1;
  case PT_F64: g->es = 8; return 1;
  case PT_F16: *g = (gemm_kind){1, BLAS_R_16F, GPU_BLAS_COMPUTE_32F, 2}; return has_ex;
  case PT_BF16: *g = (gemm_kind){1, BLAS_R_16BF, GPU_BLAS_COMPUTE_32F, 2}; return has_ex;
  default: return 0;
  }
}

/* One GEMM (batch = 0) or one strided-batched call, column-major, operands as cuBLAS takes them. */
static cublasStatus_t gemm(cuda_ctx *c, const gemm_kind *g, int ta, int tb, int64_t m, int64_t n, int64_t k, const char *x,
                           const mat *X, const char *y, const mat *Y, char *out, const mat *C, int64_t batch, const char **fn) {
  static const float f1 = 1, f0 = 0;
  static const double d1 = 1, d0 = 0;
  int M = (int)m, N = (int)n, K = (int)k, lx = (int)X->ld, ly = (int)Y->ld, lc = (int)C->ld;
  if (g->ex) {
    *fn = batch ? BLAS_NAME(GemmStridedBatchedEx) : BLAS_NAME(GemmEx);
    return batch ? cublas.GemmStridedBatchedEx(c->blas, ta, tb, M, N, K, &f1, x, g->type, lx, X->bstride, y, g->type, ly,
                                               Y->bstride, &f0, out, g->type, lc, C->bstride, (int)batch, g->compute,
                                               GPU_BLAS_GEMM_DEFAULT)
                 : cublas.GemmEx(c->blas, ta, tb, M, N, K, &f1, x, g->type, lx, y, g->type, ly, &f0, out, g->type, lc,
                                 g->compute, GPU_BLAS_GEMM_DEFAULT);
  }
  if (g->es == 4) {
    *fn = batch ? BLAS_NAME(SgemmStridedBatched) : BLAS_NAME(Sgemm);
    return batch ? cublas.SgemmStridedBatched(c->blas, ta, tb, M, N, K, &f1, (const float *)x, lx, X->bstride,
                                              (const float *)y, ly, Y->bstride, &f0, (float *)out, lc, C->bstride, (int)batch)
                 : cublas.Sgemm(c->blas, ta, tb, M, N, K, &f1, (const float *)x, lx, (const float *)y, ly, &f0, (float *)out, lc);
  }
  *fn = batch ? BLAS_NAME(DgemmStridedBatched) : BLAS_NAME(Dgemm);
  return batch ? cublas.DgemmStridedBatched(c->blas, ta, tb, M, N, K, &d1, (const double *)x, lx, X->bstride,
                                            (const double *)y, ly, Y->bstride, &d0, (double *)out, lc, C->bstride, (int)batch)
               : cublas.Dgemm(c->blas, ta, tb, M, N, K, &d1, (const double *)x, lx, (const double *)y, ly, &d0, (double *)out, lc);
}

int cuda_blas_matmul(cuda_ctx *c, CUstream stream, const pt_matmul_plan *mm, const pt_mem_ref *bufs) {
  const char *off_switch = getenv(GPU_BLAS_SWITCH); /* "0": always the program's kernel (for testing it) */
  if (off_switch && strcmp(off_switch, "0") == 0) return 1;
  /* K = 0 must write zeros, which a GEMM with k = 0 need not do; sizes must fit int. */
  if (mm->K == 0 || mm->M > INT_MAX || mm->N > INT_MAX || mm->K > INT_MAX || mm->batch > INT_MAX) return 1;
  mat A, B, C;
  if (!layout(mm->M, mm->K, mm->rs[0], mm->cs[0], &A) || !layout(mm->K, mm->N, mm->rs[1], mm->cs[1], &B) ||
      !layout(mm->M, mm->N, mm->rs[2], mm->cs[2], &C))
    return 1;
  mat *mats[3] = {&A, &B, &C};
  int strided = 1;
  for (int i = 0; i < 3; i++) {
    mats[i]->off = mm->off[i];
    mats[i]->buf = mm->buf[i];
    if (!uniform(mm, i, &mats[i]->bstride)) strided = 0;
  }
  if (mm->batch > 1 && strided && C.bstride == 0) return 1; /* every batch writes one C: the kernel's order decides */
  if (!strided && mm->batch > MAX_LOOP) return 1;

  /* cuBLAS is column-major. A row-major C is a column-major C^T = B^T A^T, and transposing
   * a matrix flips its layout with the same ld; then each operand is used as stored (N)
   * when column-major, else transposed (T). */
  int64_t m = mm->M, n = mm->N;
  mat X = A, Y = B;
  if (!C.col) { X = B; Y = A; X.col ^= 1; Y.col ^= 1; m = mm->N; n = mm->M; }
  int ta = X.col ? GPU_BLAS_OP_N : GPU_BLAS_OP_T, tb = Y.col ? GPU_BLAS_OP_N : GPU_BLAS_OP_T;
  int ix = C.col ? 0 : 1, iy = 1 - ix; /* the operands' indices in mm (A = 0, B = 1) */

  pt_mutex_lock(&c->lock);
  int st = handle(c);
  gemm_kind g;
  if (st != 1 || !gemm_kind_of(mm, &g)) {
    pt_mutex_unlock(&c->lock);
    return 1; /* no cuBLAS (the reason stays in the thread's error text) or no call for this dtype: the kernel runs */
  }
  const int64_t es = (int64_t)g.es;
  const char *px = (char *)bufs[X.buf].mem + X.off * es, *py = (char *)bufs[Y.buf].mem + Y.off * es;
  char *pc = (char *)bufs[C.buf].mem + C.off * es;
  const char *fn = BLAS_NAME(SetStream);
  cublasStatus_t s = cublas.SetStream(c->blas, stream);
  if (s == CUBLAS_STATUS_SUCCESS && strided && mm->batch > 1) {
    s = gemm(c, &g, ta, tb, m, n, mm->K, px, &X, py, &Y, pc, &C, mm->batch, &fn);
  } else {
    for (int64_t b = 0; b < mm->batch && s == CUBLAS_STATUS_SUCCESS; b++) {
      int64_t ox = mm->batch > 1 ? batch_offset(mm, ix, b) * es : 0, oy = mm->batch > 1 ? batch_offset(mm, iy, b) * es : 0;
      int64_t oc = mm->batch > 1 ? batch_offset(mm, 2, b) * es : 0;
      s = gemm(c, &g, ta, tb, m, n, mm->K, px + ox, &X, py + oy, &Y, pc + oc, &C, 0, &fn);
    }
  }
  pt_mutex_unlock(&c->lock);
  return s == CUBLAS_STATUS_SUCCESS ? PT_OK : blas_error(fn, s);
}

void cuda_blas_shutdown(cuda_ctx *c) {
  if (c->blas_state == 1 && c->blas) cublas.Destroy(c->blas);
  c->blas = NULL;
  c->blas_state = 0;
}
