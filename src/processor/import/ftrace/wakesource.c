/*
** This file holds wakeup_source_activate and wakeup_source_deactivate as Perfetto's ftrace
** parser makes them: a wakeup source held is a slice "Wakelock(<name>)" on the global track of
** its name (type wakesource_wakelock, dimension wakelock_event, named as the slice), from its
** first activation to the deactivation that balances every activation (activations while held
** and deactivations while not held only count). Queued and applied in timestamp order.
*/
#include <stdio.h>

#include "processor/import/ftrace/ftrace_internal.h"

void trak__wakesource(trak_importer *imp, uint32_t cpu, int64_t ts, const char *name, size_t len,
                      int activate) {
  trak_fq_rec r = {ts, 0, cpu, 0, activate ? 1u : 0u, 0, 0, 0, 0, TRAK_FQ_WAKESOURCE, 0, 0};
  r.s1 = trak__strpool_intern(&imp->tables->strings, name, len);
  trak__ftrace_cpu_seen(imp, cpu);
  trak__fq_push(imp, &r);
}

/* The track of wakeup source `name` (string id), made on first use. */
static uint32_t wakelock_track(trak_importer *imp, uint32_t name) {
  uint64_t key = trak__track_key(TRAK_TK_WAKESOURCE_WAKELOCK, imp->threads.machine, name);
  uint32_t *known = trak__map_get(&imp->tracks.by_uuid, key);
  if (known) return *known;
  const char *s = trak__str(&imp->tables->strings, name);
  char buf[32]; /* Perfetto's StackString<32>: longer names are cut */
  int n = snprintf(buf, sizeof buf, "Wakelock(%s)", s ? s : "");
  size_t len = n < 0 ? 0 : (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1;
  uint32_t track =
      trak__keyed_track(imp, key, trak__strpool_intern(&imp->tables->strings, buf, len),
                        TRAK_NULL_U32, 0, TRAK_TK_WAKESOURCE_WAKELOCK);
  imp->tracks.info.v[track].dim_key = name;
  imp->tracks.info.v[track].machine = imp->threads.machine;
  return track;
}

void trak__fa_wakesource(trak_importer *imp, const trak_fq_rec *r) {
  trak_ftrace *f = imp->ftrace;
  int added;
  uint32_t *held = trak__map_put(&f->wakelocks, r->s1, 0, &added);
  uint32_t count = *held;
  if (r->a) {
    *held = count + 1;
    if (count) return; /* already held: no other slice */
    uint32_t track = wakelock_track(imp, r->s1);
    trak__ftrace_slice_ev(imp, r->ts, TRAK_EV_BEGIN, track, imp->tracks.info.v[track].name, 0,
                          TRAK_NULL_U32);
    return;
  }
  *held = count ? count - 1 : 0;
  if (count != 1) return;
  trak__ftrace_slice_ev(imp, r->ts, TRAK_EV_END, wakelock_track(imp, r->s1), 0, 0, TRAK_NULL_U32);
}
