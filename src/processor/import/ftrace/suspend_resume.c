/*
** This file holds suspend_resume events as Perfetto's ftrace parser makes them: each phase
** ("action(val)") a slice on the lanes of the global "Suspend/Resume Latency" track set (the
** slice name its cookie), with the writer's utid, the CPU and the event type as args; and its
** workaround for a kernel bug where suspend_enter never ends when suspend_prepare fails (an end
** of thaw_processes inside freeze_processes inside suspend_enter ends suspend_enter too).
*/
#include <stdio.h>
#include <string.h>

#include "processor/import/ftrace/ftrace_internal.h"

/* The action's kind, for the workaround. */
enum { ACTION_OTHER, ACTION_SUSPEND_ENTER, ACTION_FREEZE, ACTION_THAW };
/* Where a suspend is (trak_ftrace.suspend_state). */
enum { SUSPEND_INITIAL, SUSPEND_ENTER, SUSPEND_FREEZE };

static int action_is(const char *s, size_t len, const char *name) {
  return len == strlen(name) && memcmp(s, name, len) == 0;
}

void trak__suspend_resume(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid,
                          const char *action, size_t len, int32_t val, int start) {
  char buf[160];
  if (len > 100) len = 100; /* Perfetto's name is at most 63 bytes; a kernel action is short */
  /* the processor of timekeeping_freeze's val varies from suspend to suspend: 0 */
  if (action_is(action, len, "timekeeping_freeze")) val = 0;
  int n = snprintf(buf, sizeof buf, "%.*s(%d)", (int)len, action, val);
  int kind = action_is(action, len, "suspend_enter")      ? ACTION_SUSPEND_ENTER
             : action_is(action, len, "freeze_processes") ? ACTION_FREEZE
             : action_is(action, len, "thaw_processes")   ? ACTION_THAW
                                                          : ACTION_OTHER;
  trak_fq_rec r = {ts, 0, cpu, tid, start ? 1u : 0u, 0, 0, kind, 0, TRAK_FQ_SUSPEND_RESUME, 0, 0};
  r.s1 = trak__strpool_intern(&imp->tables->strings, buf, (size_t)n);
  trak__ftrace_cpu_seen(imp, cpu);
  trak__fq_push(imp, &r);
}

/* Ends the slice of `cookie` (a slice name) on its lane of set `s`. */
static void end(trak_importer *imp, uint32_t s, int64_t ts, uint32_t cookie) {
  trak_clane *ln = trak__lane_for_cookie(imp, s, cookie);
  trak__lane_nest(imp, ln, -1, 0);
  trak__ftrace_slice_ev(imp, ts, TRAK_EV_END, ln->track, 0, 0, TRAK_NULL_U32);
}

void trak__fa_suspend_resume(trak_importer *imp, const trak_fq_rec *r) {
  trak_ftrace *f = imp->ftrace;
  uint32_t s = trak__lane_set(imp, TRAK_TK_SUSPEND_RESUME, TRAK_NULL_U32,
                              trak__ftrace_str(imp, "Suspend/Resume Latency"));
  if (!r->a) {
    end(imp, s, r->ts, r->s1);
    if (r->p1 == ACTION_SUSPEND_ENTER) {
      f->suspend_state = SUSPEND_INITIAL;
    } else if (r->p1 == ACTION_THAW && f->suspend_state == SUSPEND_FREEZE) {
      end(imp, s, r->ts, f->suspend_enter_cookie); /* the bug: suspend_enter ends here */
      f->suspend_state = SUSPEND_INITIAL;
    }
    return;
  }
  if (r->p1 == ACTION_SUSPEND_ENTER) {
    f->suspend_state = SUSPEND_ENTER;
    f->suspend_enter_cookie = r->s1;
  } else if (r->p1 == ACTION_FREEZE && f->suspend_state == SUSPEND_ENTER) {
    f->suspend_state = SUSPEND_FREEZE;
  }
  trak_clane *ln = trak__lane_for_cookie(imp, s, r->s1);
  trak__lane_nest(imp, ln, 1, 0);
  uint32_t track = ln->track;
  uint32_t set = trak__ftrace_args_begin(imp);
  trak__ftrace_arg_uint(imp, set, trak__ftrace_str(imp, "utid"), trak__ftrace_utid(imp, r->pid));
  trak__ftrace_arg_str(imp, set, trak__ftrace_str(imp, "event_type"),
                       trak__ftrace_str(imp, "Main Kernel Suspend Event"));
  trak__ftrace_arg_uint(imp, set, trak__ftrace_str(imp, "cpu"), r->cpu);
  /* not a device PM callback: these are null */
  trak__ftrace_arg_str(imp, set, trak__ftrace_str(imp, "device_name"), 0);
  trak__ftrace_arg_str(imp, set, trak__ftrace_str(imp, "driver_name"), 0);
  trak__ftrace_arg_str(imp, set, trak__ftrace_str(imp, "callback_phase"), 0);
  trak__ftrace_slice_ev(imp, r->ts, TRAK_EV_BEGIN, track, r->s1, 0, trak__args_share(imp, set));
}
