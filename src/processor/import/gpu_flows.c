/*
** This file holds the GPU correlation flows as Perfetto's GPU tracker draws them. A render stage
** slice with an event_id flows from the track event slice that last submitted that id
** (GpuCorrelation.render_stage_submission_event_ids), to the one that last waited on it
** (render_stage_wait_event_ids), and to every render stage that waited on it (event_wait_ids);
** a track event slice that submits or waits on an id, or a stage that waits on one, links to
** the stages with that id made before it. Slices are made in timestamp order, so each link is
** drawn when its second slice is made, as in Perfetto. The flows have no trace_id.
*/
#include <stdlib.h>
#include <string.h>

#include "processor/import/gpu_flows.h"
#include "processor/import/importer.h"

enum { NOTE_STAGE, NOTE_EVENT };

/* One packet's ids: a stage's event_id and waits, or an event's submissions and waits; the ids
** are ids.v[first ...]: n_a submissions (events) then n_b waits. */
typedef struct note {
  uint8_t kind;
  uint64_t event_id;
  size_t first;
  uint32_t n_a, n_b;
} note;

/* A list of slices per event_id: map to the head node, nodes chained newest first. */
typedef struct slice_node {
  uint32_t slice, next; /* next: 1 + node index, 0: end */
} slice_node;

typedef struct slice_lists {
  trak_map head; /* event_id -> 1 + node index */
  TRAK_VEC(slice_node) node;
} slice_lists;

struct trak_gpu_flows {
  trak_map by_pkt; /* packet index -> 1 + index in notes */
  TRAK_VEC(note) notes;
  TRAK_VEC(uint64_t) ids;
  /* parse phase */
  slice_lists stages;   /* event_id -> the render stage slices with it */
  slice_lists waiting;  /* event_id -> the render stage slices that waited on it */
  trak_map submitter;   /* event_id -> 1 + the track event slice that last submitted it */
  trak_map terminator;  /* event_id -> 1 + the track event slice that last waited on it */
};

static struct trak_gpu_flows *state(trak_importer *imp) {
  if (!imp->gpu_flows) {
    imp->gpu_flows = calloc(1, sizeof *imp->gpu_flows);
    if (!imp->gpu_flows) abort();
  }
  return imp->gpu_flows;
}

static void note_add(trak_importer *imp, uint32_t pkt, note n, const uint64_t *a,
                     const uint64_t *b) {
  struct trak_gpu_flows *g = state(imp);
  n.first = g->ids.n;
  for (uint32_t i = 0; i < n.n_a; i++)
    trak_vec_push(g->ids, a[i]);
  for (uint32_t i = 0; i < n.n_b; i++)
    trak_vec_push(g->ids, b[i]);
  trak_vec_push(g->notes, n);
  int added;
  *trak__map_put(&g->by_pkt, pkt, 0, &added) = (uint32_t)g->notes.n;
}

void trak__gpu_flows_note_stage(trak_importer *imp, uint32_t pkt, uint64_t event_id,
                                const uint64_t *waits, size_t n_waits) {
  note n = {NOTE_STAGE, event_id, 0, 0, (uint32_t)n_waits};
  note_add(imp, pkt, n, NULL, waits);
}

void trak__gpu_flows_note_event(trak_importer *imp, uint32_t pkt, const uint64_t *sub,
                                size_t n_sub, const uint64_t *wait, size_t n_wait) {
  if (!n_sub && !n_wait) return;
  note n = {NOTE_EVENT, 0, 0, (uint32_t)n_sub, (uint32_t)n_wait};
  note_add(imp, pkt, n, sub, wait);
}

static void list_push(slice_lists *l, uint64_t event_id, uint32_t slice) {
  int added;
  uint32_t *head = trak__map_put(&l->head, event_id, 0, &added);
  slice_node n = {slice, *head};
  trak_vec_push(l->node, n);
  *head = (uint32_t)l->node.n; /* the map is not touched between put and here */
}

/* Links every slice of `event_id`'s list to `slice` (into: 1) or from it (into: 0), in the
** order the slices were made. */
static void list_link(trak_importer *imp, const slice_lists *l, uint64_t event_id, uint32_t slice,
                      int into) {
  const uint32_t *head = trak__map_get(&l->head, event_id);
  if (!head) return;
  size_t n = 0;
  for (uint32_t i = *head; i; i = l->node.v[i - 1].next)
    n++;
  uint32_t *order = malloc(n * sizeof *order);
  if (!order) abort();
  size_t k = n;
  for (uint32_t i = *head; i; i = l->node.v[i - 1].next)
    order[--k] = l->node.v[i - 1].slice;
  for (size_t j = 0; j < n; j++)
    trak__flow_add(imp->tables, into ? order[j] : slice, into ? slice : order[j], INT64_MIN);
  free(order);
}

/* Sets map[event_id] to 1 + slice. */
static void map_set(trak_map *m, uint64_t event_id, uint32_t slice) {
  int added;
  *trak__map_put(m, event_id, 0, &added) = slice + 1;
}

void trak__gpu_flows_slice(trak_importer *imp, uint32_t pkt, uint32_t slice) {
  struct trak_gpu_flows *g = imp->gpu_flows;
  const uint32_t *slot = trak__map_get(&g->by_pkt, pkt);
  if (!slot) return;
  const note *n = &g->notes.v[*slot - 1];
  const uint64_t *ids = n->n_a + n->n_b ? g->ids.v + n->first : NULL; /* (no ids: v may be NULL) */
  if (n->kind == NOTE_STAGE) {
    list_push(&g->stages, n->event_id, slice);
    const uint32_t *from = trak__map_get(&g->submitter, n->event_id);
    if (from) trak__flow_add(imp->tables, *from - 1, slice, INT64_MIN);
    const uint32_t *to = trak__map_get(&g->terminator, n->event_id);
    if (to) trak__flow_add(imp->tables, slice, *to - 1, INT64_MIN);
    list_link(imp, &g->waiting, n->event_id, slice, 0);
    for (uint32_t i = 0; i < n->n_b; i++) { /* the stages it waited on, then it waits */
      list_link(imp, &g->stages, ids[i], slice, 1);
      list_push(&g->waiting, ids[i], slice);
    }
    return;
  }
  for (uint32_t i = 0; i < n->n_a; i++) {
    map_set(&g->submitter, ids[i], slice);
    list_link(imp, &g->stages, ids[i], slice, 0);
  }
  for (uint32_t i = n->n_a; i < n->n_a + n->n_b; i++) {
    map_set(&g->terminator, ids[i], slice);
    list_link(imp, &g->stages, ids[i], slice, 1);
  }
}

static void lists_free(slice_lists *l) {
  trak__map_free(&l->head);
  trak_vec_free(l->node);
}

void trak__gpu_flows_free(trak_importer *imp) {
  struct trak_gpu_flows *g = imp->gpu_flows;
  if (!g) return;
  trak__map_free(&g->by_pkt);
  trak_vec_free(g->notes);
  trak_vec_free(g->ids);
  lists_free(&g->stages);
  lists_free(&g->waiting);
  trak__map_free(&g->submitter);
  trak__map_free(&g->terminator);
  free(g);
  imp->gpu_flows = NULL;
}
