/*
** This file holds the per-track slice stacks that make the writer correct by construction:
** every event is checked against its track's stack (timestamps never go backwards, slices
** nest, an END has a slice to close) before anything is written, and AUTO_SIBLINGS tracks
** place overlapping slices on lanes. A COMPLETE slice stays on the stack until the first event
** at or after its end; its END packet is written then (or at close), so every track's packets
** are in timestamp order and a reader sees the same nesting whether or not it sorts.
*/
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "writer/writer_internal.h"

static const char *slice_name(const trak_writer *w, const trak__wslice *s) {
  const char *n = trak__wr_intern_string(&w->names, s->name);
  return n ? n : "(unnamed)";
}

/* Records why `ev` is refused on track h, prefixed with the call, and returns `code`. In quiet
** mode (probing lanes) nothing is recorded. */
__attribute__((format(printf, 6, 7), cold, noinline)) static int
refuse(trak_writer *w, int quiet, int code, const trak_writer_event *ev, trak_writer_track h,
       const char *fmt, ...) {
  if (quiet) return code;
  char why[320];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  return trak__wr_fail(w, code, "%s at %llu on track %u [%s]: %s", trak__wr_event_call(ev->type),
                       (unsigned long long)ev->ts, h, trak__track(w, h)->label, why);
}

/* The stack depth of t once the COMPLETE slices that ended at or before ts are popped. */
static uint32_t settled_depth(const trak__wtrack *t, uint64_t ts) {
  uint32_t d = t->depth;
  while (d && t->stack[d - 1].end != TRAK__OPEN && t->stack[d - 1].end <= ts)
    d--;
  return d;
}

/* The slice among stack[0, k) whose end is the bound stack[k - 1].bound. */
static const trak__wslice *bound_owner(const trak__wtrack *t, uint32_t k) {
  uint64_t bound = t->stack[k - 1].bound;
  while (k && t->stack[k - 1].end != bound)
    k--;
  return k ? &t->stack[k - 1] : &t->stack[0];
}

/* Checks `ev` on exactly track h. Returns 0 and the settled depth, or a refusal. */
static int check_on(trak_writer *w, trak_writer_track h, const trak_writer_event *ev, int quiet,
                    uint32_t *depth) {
  const trak__wtrack *t = trak__track(w, h);
  uint64_t ts = ev->ts;
  if (t->has_events && ts < t->last_ts)
    return refuse(w, quiet, TRAK_ESTATE, ev, h,
                  "timestamp goes backwards (the previous event on this track is at %llu)",
                  (unsigned long long)t->last_ts);
  uint32_t d = settled_depth(t, ts);
  *depth = d;
  if (ev->type == TRAK_WRITER_COUNTER_INT || ev->type == TRAK_WRITER_COUNTER_DOUBLE) return 0;
  const trak__wslice *top = d ? &t->stack[d - 1] : NULL;

  if (ev->type == TRAK_WRITER_END) {
    uint32_t k = d;
    while (k && t->stack[k - 1].end != TRAK__OPEN)
      k--;
    if (!k) return refuse(w, quiet, TRAK_ESTATE, ev, h, "no open slice to end");
    const trak__wslice *s = &t->stack[k - 1];
    if (k != d)
      return refuse(w, quiet, TRAK_ESTATE, ev, h,
                    "slice '%s' would end before its child '%s', which ends at %llu",
                    slice_name(w, s), slice_name(w, &t->stack[k]),
                    (unsigned long long)t->stack[k].end);
    if (k > 1 && t->stack[k - 2].bound != TRAK__OPEN && ts > t->stack[k - 2].bound)
      return refuse(w, quiet, TRAK_ESTATE, ev, h,
                    "slice '%s' would end after its parent '%s', which ends at %llu",
                    slice_name(w, s), slice_name(w, bound_owner(t, k - 1)),
                    (unsigned long long)t->stack[k - 2].bound);
    return 0;
  }
  if (top && top->end == TRAK__OPEN && top->bound != TRAK__OPEN && ts >= top->bound)
    return refuse(w, quiet, TRAK_ESTATE, ev, h,
                  "starts at or after the end (%llu) of the enclosing slice '%s' while slice '%s' "
                  "is still open",
                  (unsigned long long)top->bound, slice_name(w, bound_owner(t, d)),
                  slice_name(w, top));
  if (ev->type == TRAK_WRITER_COMPLETE) {
    if (ev->dur > UINT64_MAX - 1 - ts)
      return refuse(w, quiet, TRAK_EINVAL, ev, h, "ts + dur overflows");
    if (top && top->bound != TRAK__OPEN && ts + ev->dur > top->bound) {
      const char *parent =
          top->end == top->bound ? slice_name(w, top) : slice_name(w, bound_owner(t, d));
      return refuse(w, quiet, TRAK_ESTATE, ev, h,
                    "slice '%s' would end at %llu, after its parent '%s', which ends at %llu",
                    ev->name ? ev->name : "(unnamed)", (unsigned long long)(ts + ev->dur), parent,
                    (unsigned long long)top->bound);
    }
  }
  return 0;
}

/* Whether lane h can take `ev` as an AUTO_SIBLINGS placement. */
static int lane_fits(trak_writer *w, trak_writer_track h, const trak_writer_event *ev,
                     trak_writer_name name, uint32_t *depth) {
  if (check_on(w, h, ev, 1, depth)) return 0;
  const trak__wtrack *t = trak__track(w, h);
  switch (ev->type) {
  case TRAK_WRITER_BEGIN:
    return *depth == 0;
  case TRAK_WRITER_COMPLETE:
    return *depth == 0 || t->stack[*depth - 1].end != TRAK__OPEN;
  case TRAK_WRITER_END:
    return !name || t->stack[*depth - 1].name == name;
  default:
    return 1;
  }
}

/* AUTO_SIBLINGS placement: the first lane that fits (for END: the newest matching open slice);
** plan->lane = 0 asks for a new lane. */
static int plan_auto(trak_writer *w, trak_writer_track h, const trak_writer_event *ev,
                     trak_writer_name name, trak__plan *plan) {
  const trak__wtrack *t = trak__track(w, h);
  uint64_t newest = 0;
  plan->lane = 0;
  plan->depth = 0;
  for (uint32_t i = 0; i <= t->n_lanes; i++) {
    trak_writer_track lane = i ? t->lanes[i - 1] : h;
    /* Lane 0 is the declared track itself. */
    uint32_t depth;
    if (!lane_fits(w, lane, ev, name, &depth)) continue;
    if (ev->type != TRAK_WRITER_END) {
      plan->lane = lane;
      plan->depth = depth;
      return 0;
    }
    uint64_t seq = trak__track(w, lane)->stack[depth - 1].seq;
    if (seq > newest) {
      newest = seq;
      plan->lane = lane;
      plan->depth = depth;
    }
  }
  if (ev->type == TRAK_WRITER_END && !plan->lane) {
    if (name || ev->name)
      return refuse(w, 0, TRAK_ESTATE, ev, h, "no open slice named '%s' can end here on any lane",
                    ev->name ? ev->name : trak__wr_intern_string(&w->names, name));
    return refuse(w, 0, TRAK_ESTATE, ev, h, "no open slice to end on any lane");
  }
  return 0;
}

int trak__wr_slices_plan(trak_writer *w, trak_writer_track h, int direct,
                         const trak_writer_event *ev, trak_writer_name name, trak__plan *plan) {
  if (!direct && (trak__track(w, h)->flags & TRAK_WRITER_AUTO_SIBLINGS))
    return plan_auto(w, h, ev, name, plan);
  plan->lane = h;
  return check_on(w, h, ev, 0, &plan->depth);
}

int trak__wr_slices_commit(trak_writer *w, const trak_writer_event *ev, trak_writer_name name,
                           const trak__plan *plan) {
  trak__wtrack *t = trak__track(w, plan->lane);
  int push = ev->type == TRAK_WRITER_BEGIN || ev->type == TRAK_WRITER_COMPLETE;
  if (push && plan->depth == t->cap) {
    uint32_t cap = t->cap ? t->cap * 2 : 8;
    trak__wslice *stack = realloc(t->stack, cap * sizeof *stack);
    if (!stack) return TRAK_ENOMEM;
    t->stack = stack;
    t->cap = cap;
  }
  /* The COMPLETE slices that ended by now get their END packets, innermost first. */
  for (uint32_t i = t->depth; i-- > plan->depth;) {
    int rc = trak__wr_write_end(w, plan->lane, t->stack[i].end);
    if (rc) return rc;
  }
  t->depth = plan->depth;
  t->last_ts = ev->ts;
  t->has_events = 1;
  if (ev->type == TRAK_WRITER_END) {
    t->depth--;
  } else if (push) {
    uint64_t parent_bound = t->depth ? t->stack[t->depth - 1].bound : TRAK__OPEN;
    uint64_t end = ev->type == TRAK_WRITER_COMPLETE ? ev->ts + ev->dur : TRAK__OPEN;
    t->stack[t->depth++] = (trak__wslice){.start = ev->ts,
                                          .end = end,
                                          .bound = end < parent_bound ? end : parent_bound,
                                          .seq = ++w->slice_seq,
                                          .name = name};
  }
  return 0;
}

int trak__wr_slices_finish(trak_writer *w) {
  for (uint32_t h = 1; h <= w->n_tracks; h++) {
    trak__wtrack *t = trak__track(w, h);
    /* Innermost first: COMPLETE slices end at their end, open slices inside one end with it,
    ** other open slices stay open. */
    for (uint32_t i = t->depth; i-- > 0;) {
      const trak__wslice *s = &t->stack[i];
      if (s->end == TRAK__OPEN && s->bound == TRAK__OPEN) {
        w->totals.open_slices++;
        continue;
      }
      int rc = trak__wr_write_end(w, h, s->end != TRAK__OPEN ? s->end : s->bound);
      if (rc) return rc;
    }
    t->depth = 0;
  }
  return 0;
}
