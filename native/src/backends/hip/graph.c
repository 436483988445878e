/* graph.c: captured steps as HIP graphs.
 *
 * Ownership and ordering. capture_begin puts the queue's stream into capture (relaxed
 * mode, because the caching allocator may call hipMalloc while a step records); launches,
 * hipBLAS calls and copies made on it are then recorded instead of run. capture_end ends
 * the capture and instantiates the graph once; a replay is one hipGraphLaunch on any queue
 * of the device, ordered with that queue's other work. The graph owns its hipGraph_t and
 * hipGraphExec_t; the core keeps every buffer the step touched alive until graph_free.
 * Kinds launched while capturing are remembered, so a replay marks them as possible writers
 * of the error word, like a direct launch does. The graph calls are optional in lib.h: a
 * runtime without them makes every hook here fail with PT_EUNSUPPORTED.
 */
#include <stdlib.h>
#include "hip.h"

typedef struct { hipGraph_t graph; hipGraphExec_t exec; uint32_t kinds; } hip_graph;

int hipd_has_graphs(void) {
  return hip.StreamBeginCapture && hip.StreamEndCapture && hip.GraphInstantiate && hip.GraphLaunch &&
         hip.GraphExecDestroy && hip.GraphDestroy;
}

static int need_graphs(void) {
  if (hipd_has_graphs()) return PT_OK;
  return pt_error(PT_EUNSUPPORTED, "hip: %s lacks the graph API (hipStreamBeginCapture, hipStreamEndCapture, "
                  "hipGraphInstantiateWithFlags, hipGraphLaunch; ROCm 4.5+)", hip_path());
}

int hipd_capture_begin(void *ctx, void *queue) {
  hip_ctx *c = ctx;
  hip_queue *q = queue;
  int st = need_graphs();
  if (st != PT_OK || (st = hip_enter(c)) != PT_OK) return st;
  hipError_t r = hip.StreamBeginCapture(q->s, hipStreamCaptureModeRelaxed);
  if (r != hipSuccess) return hip_fail(c, "hipStreamBeginCapture", r);
  pt_mutex_lock(&c->lock);
  q->capturing = 1;
  q->capture_kinds = 0;
  pt_mutex_unlock(&c->lock);
  return PT_OK;
}

int hipd_capture_end(void *ctx, void *queue, void **out) {
  hip_ctx *c = ctx;
  hip_queue *q = queue;
  int st = hip_enter(c);
  if (st != PT_OK) return st;
  pt_mutex_lock(&c->lock);
  q->capturing = 0;
  uint32_t kinds = q->capture_kinds;
  pt_mutex_unlock(&c->lock);
  hipGraph_t graph = NULL;
  hipGraphExec_t exec = NULL;
  hipError_t r = hip.StreamEndCapture(q->s, &graph);
  if (r != hipSuccess) return hip_fail(c, "hipStreamEndCapture", r);
  if ((r = hip.GraphInstantiate(&exec, graph, 0)) != hipSuccess) {
    hip.GraphDestroy(graph);
    return hip_fail(c, "hipGraphInstantiateWithFlags", r);
  }
  hip_graph *g = malloc(sizeof *g);
  if (!g) {
    hip.GraphExecDestroy(exec);
    hip.GraphDestroy(graph);
    return pt_error(PT_EOOM, "hip: out of host memory for a graph");
  }
  *g = (hip_graph){graph, exec, kinds};
  *out = g;
  return PT_OK;
}

int hipd_graph_launch(void *ctx, void *queue, void *graph) {
  hip_ctx *c = ctx;
  hip_queue *q = queue;
  hip_graph *g = graph;
  int st = hip_enter(c);
  if (st != PT_OK) return st;
  pt_mutex_lock(&c->lock);
  if (g->kinds) c->launched = 1;
  c->kinds_since |= g->kinds;
  pt_mutex_unlock(&c->lock);
  hipError_t r = hip.GraphLaunch(g->exec, q->s);
  return r == hipSuccess ? PT_OK : hip_fail(c, "hipGraphLaunch", r);
}

void hipd_graph_free(void *ctx, void *graph) {
  hip_graph *g = graph;
  if (hip_enter(ctx) == PT_OK) {
    hip.GraphExecDestroy(g->exec);
    hip.GraphDestroy(g->graph);
  }
  free(g);
}
