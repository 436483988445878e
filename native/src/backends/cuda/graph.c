/* graph.c: captured steps as CUDA graphs.
 *
 * Ownership and ordering. capture_begin puts the queue's stream into capture (relaxed
 * mode, because the caching allocator may call cuMemAlloc while a step records); launches,
 * cuBLAS calls and copies made on it are then recorded instead of run. capture_end ends
 * the capture and instantiates the graph once; a replay is one cuGraphLaunch on any queue
 * of the context, ordered with that queue's other work. The graph owns its CUgraph and
 * CUgraphExec; the core keeps every buffer the step touched alive until graph_free. Kinds
 * launched while capturing are remembered, so a replay marks them as possible writers of
 * the error word, like a direct launch does.
 */
#include <stdlib.h>
#include "cuda.h"

typedef struct { void *graph, *exec; uint32_t kinds; } cuda_graph;

int cuda_has_graphs(void) {
  return cu.StreamBeginCapture && cu.StreamEndCapture && cu.GraphInstantiate && cu.GraphLaunch && cu.GraphExecDestroy &&
         cu.GraphDestroy;
}

static int need_graphs(void) {
  return cuda_has_graphs() ? PT_OK : pt_error(PT_EUNSUPPORTED, GPU_TAG ": " GPU_NO_GRAPHS);
}

int cuda_capture_begin(void *ctx, void *queue) {
  cuda_ctx *c = ctx;
  cuda_queue *q = queue;
  int st = need_graphs();
  if (st != PT_OK || (st = cu_enter(c)) != PT_OK) return st;
  pt_ring_drain(&q->ring); /* launches before the capture run, not record */
  CUresult r = cu.StreamBeginCapture(q->s, CU_STREAM_CAPTURE_MODE_RELAXED);
  if (r != CUDA_SUCCESS) return cu_fail(c, CU_NAME(StreamBeginCapture), r);
  pt_mutex_lock(&c->lock);
  atomic_store(&q->capturing, 1);
  q->capture_kinds = 0;
  pt_mutex_unlock(&c->lock);
  return PT_OK;
}

int cuda_capture_end(void *ctx, void *queue, void **out) {
  cuda_ctx *c = ctx;
  cuda_queue *q = queue;
  int st = cu_enter(c);
  if (st != PT_OK) return st;
  pt_mutex_lock(&c->lock);
  atomic_store(&q->capturing, 0);
  uint32_t kinds = q->capture_kinds;
  pt_mutex_unlock(&c->lock);
  void *graph = NULL, *exec = NULL;
  CUresult r = cu.StreamEndCapture(q->s, &graph);
  if (r != CUDA_SUCCESS) return cu_fail(c, CU_NAME(StreamEndCapture), r);
  if ((r = cu.GraphInstantiate(&exec, graph, 0)) != CUDA_SUCCESS) {
    cu.GraphDestroy(graph);
    return cu_fail(c, CU_NAME(GraphInstantiate), r);
  }
  cuda_graph *g = malloc(sizeof *g);
  if (!g) {
    cu.GraphExecDestroy(exec);
    cu.GraphDestroy(graph);
    return pt_error(PT_EOOM, GPU_TAG ": out of host memory for a graph");
  }
  *g = (cuda_graph){graph, exec, kinds};
  *out = g;
  return PT_OK;
}

int cuda_graph_launch(void *ctx, void *queue, void *graph) {
  cuda_ctx *c = ctx;
  cuda_queue *q = queue;
  cuda_graph *g = graph;
  int st = cu_enter(c);
  if (st != PT_OK) return st;
  pt_ring_drain(&q->ring);
  pt_mutex_lock(&c->lock);
  pt_word_mark(&c->word, g->kinds, g->kinds != 0);
  pt_mutex_unlock(&c->lock);
  atomic_store(&q->kernels, 1);
  CUresult r = cu.GraphLaunch(g->exec, q->s);
  return r == CUDA_SUCCESS ? PT_OK : cu_fail(c, CU_NAME(GraphLaunch), r);
}

void cuda_graph_free(void *ctx, void *graph) {
  cuda_graph *g = graph;
  if (cu_enter(ctx) == PT_OK) {
    cu.GraphExecDestroy(g->exec);
    cu.GraphDestroy(g->graph);
  }
  free(g);
}
