/*
** This file holds what a systrace event line means, with the rules of Perfetto's systrace line
** parser: the task names its thread (unless "<...>") and a numeric TGID ties it to its process;
** then sched_switch, sched_waking, sched_blocked_reason, cpu_frequency, cpu_frequency_limits,
** cpu_idle, clock_set_rate, clock_enable / clock_disable, thermal_temperature, cdev_update,
** rss_stat, workqueue_execute_start/end and the atrace markers of tracing_mark_write / print /
** "0" go to the Linux event sink (import/ftrace/ftrace.h). Perfetto's text path reads no other
** event (no generic ftrace_event rows), and neither does this one, except binder's events
** (binder_transaction, ...), which Perfetto's makes transaction slices of and this one skips.
*/
#define _GNU_SOURCE /* memmem */
#include <string.h>

#include "processor/import/ftrace/ftrace.h"
#include "processor/import/systrace/systrace_import.h"
#include "processor/util/task_state.h"

static int strv_is(trak_strv v, const char *lit) {
  size_t n = strlen(lit);
  return v.len == n && memcmp(v.s, lit, n) == 0;
}

static uint32_t intern(trak_importer *imp, trak_strv v) {
  return trak__strpool_intern(&imp->tables->strings, v.s, v.len);
}

/* The value of `key` in the line's arguments, empty when absent (Perfetto reads a missing key
** as ""). */
static trak_strv arg(const trak_systrace_line *l, const char *key) {
  trak_strv v = {"", 0};
  trak__systrace_args_find(l->args, key, &v);
  return v;
}

static void sched_switch(trak_systrace_import *s, const trak_systrace_line *l, uint64_t line_no) {
  trak_strv state = arg(l, "prev_state");
  uint32_t prev_pid, next_pid;
  int32_t prev_prio, next_prio;
  if (trak__systrace_u32(arg(l, "prev_pid"), &prev_pid) ||
      trak__systrace_i32(arg(l, "prev_prio"), &prev_prio) ||
      trak__systrace_u32(arg(l, "next_pid"), &next_pid) ||
      trak__systrace_i32(arg(l, "next_prio"), &next_prio)) {
    trak__systrace_unparsed(s, line_no,
                            "sched_switch without prev_pid, prev_prio, next_pid "
                            "and next_prio numbers");
    return;
  }
  trak_importer *imp = s->imp;
  trak__sched_switch(imp, l->cpu, l->ts, TRAK_FTRACE_NO_FLAGS, prev_pid,
                     intern(imp, arg(l, "prev_comm")), prev_prio,
                     trak__task_state_from_systrace(state.s, state.len), next_pid,
                     intern(imp, arg(l, "next_comm")), next_prio);
}

static void sched_waking(trak_systrace_import *s, const trak_systrace_line *l, uint64_t line_no) {
  uint32_t pid;
  if (trak__systrace_u32(arg(l, "pid"), &pid)) {
    trak__systrace_unparsed(s, line_no, "sched_waking without a pid number");
    return;
  }
  /* Perfetto's text path reads neither prio nor target_cpu nor the flags; no ftrace_event row */
  trak__sched_waking(s->imp, l->cpu, l->ts, TRAK_FTRACE_NO_FLAGS, l->pid, pid,
                     intern(s->imp, arg(l, "comm")), 0, 0, 0);
}

static void blocked_reason(trak_systrace_import *s, const trak_systrace_line *l, uint64_t line_no) {
  uint32_t pid;
  int32_t io_wait;
  if (trak__systrace_u32(arg(l, "pid"), &pid) || trak__systrace_i32(arg(l, "iowait"), &io_wait)) {
    trak__systrace_unparsed(s, line_no, "sched_blocked_reason without pid and iowait numbers");
    return;
  }
  trak__sched_blocked_reason(s->imp, l->ts, pid, io_wait != 0, intern(s->imp, arg(l, "caller")));
}

/* rss_stat ("size=8437760 member=1 curr=1 mm_id=2824390453"). Perfetto's text path keeps curr
** only when it does not parse (a slip in its check), reading it then as 0: so a line with curr
** tells of its own thread's memory, and one without curr but with an mm_id of another's. */
static void rss_stat(trak_systrace_import *s, const trak_systrace_line *l, uint64_t line_no) {
  int64_t size, mm_id = 0;
  uint32_t member, curr;
  if (trak__systrace_i64(arg(l, "size"), &size) || trak__systrace_u32(arg(l, "member"), &member)) {
    trak__systrace_unparsed(s, line_no, "rss_stat without size and member numbers");
    return;
  }
  int has_mm = !trak__systrace_i64(arg(l, "mm_id"), &mm_id);
  int has_curr = !trak__systrace_u32(arg(l, "curr"), &curr);
  trak__rss_stat(s->imp, l->ts, l->pid, member, size, has_mm && !has_curr ? 0 : -1, mm_id);
}

/* The part `k` (from 0) of `v` split at every `sep`, empty parts left out, as Perfetto's
** SplitString gives them; {NULL, 0} when there are fewer. */
static trak_strv split_part(trak_strv v, const char *sep, int k) {
  size_t sl = strlen(sep);
  const char *p = v.s, *end = v.s + v.len;
  for (;;) {
    const char *d = p < end ? memmem(p, (size_t)(end - p), sep, sl) : NULL;
    const char *stop = d ? d : end;
    if (stop > p && k-- == 0) return (trak_strv){p, (size_t)(stop - p)};
    if (!d) return (trak_strv){NULL, 0};
    p = d + sl;
  }
}

/* workqueue_execute_start ("work struct 00000000c6a3e00a: function blk_mq_run_work_fn"): a
** slice of category "workqueue" on the thread's track, without args, named by the second part
** of the text split at "function ", as Perfetto names it (a line without one names none). */
static void workqueue_start(trak_systrace_import *s, const trak_systrace_line *l,
                            uint64_t line_no) {
  trak_strv name = split_part(l->args, "function ", 1);
  if (!name.s) {
    trak__systrace_unparsed(s, line_no, "workqueue_execute_start without \"function NAME\"");
    return;
  }
  trak__workqueue_start(s->imp, l->cpu, l->ts, l->pid, intern(s->imp, name), 0);
}

/* cpu_frequency and cpu_idle: `state` on the counter track of `kind` for CPU `cpu_id`. */
static void cpu_counter(trak_systrace_import *s, const trak_systrace_line *l, uint64_t line_no,
                        trak_track_kind_id kind) {
  uint32_t cpu;
  double value;
  if (trak__systrace_u32(arg(l, "cpu_id"), &cpu) ||
      trak__systrace_double(arg(l, "state"), &value)) {
    trak__systrace_unparsed(s, line_no, "a cpu counter without cpu_id and state numbers");
    return;
  }
  trak__cpu_counter(s->imp, kind, cpu, l->ts, value);
}

/* cpu_frequency_limits: "max" (or "max_freq") and "min" (or "min_freq") of CPU `cpu_id`; a
** key present but not a number counts as absent, as in Perfetto. */
static void freq_limits(trak_systrace_import *s, const trak_systrace_line *l, uint64_t line_no) {
  uint32_t cpu;
  trak_strv v;
  double max, min;
  if (trak__systrace_u32(arg(l, "cpu_id"), &cpu)) {
    trak__systrace_unparsed(s, line_no, "cpu_frequency_limits without a cpu_id number");
    return;
  }
  int has_max = !trak__systrace_double(
      trak__systrace_args_find(l->args, "max", &v) ? v : arg(l, "max_freq"), &max);
  int has_min = !trak__systrace_double(
      trak__systrace_args_find(l->args, "min", &v) ? v : arg(l, "min_freq"), &min);
  if (has_max) trak__cpu_counter(s->imp, TRAK_TK_CPU_MAX_FREQ_LIMIT, cpu, l->ts, max);
  if (has_min) trak__cpu_counter(s->imp, TRAK_TK_CPU_MIN_FREQ_LIMIT, cpu, l->ts, min);
  if (!has_max && !has_min)
    trak__systrace_unparsed(s, line_no, "cpu_frequency_limits without max or min numbers");
}

/* clock_set_rate ("ref_clk state=19200000 cpu_id=0": the bare word is the arg "name") and
** clock_enable / clock_disable: `state`, a uint32, on the clock's track of `kind`
** ("<name> Frequency", "<name> State"). */
static void clock_counter(trak_systrace_import *s, const trak_systrace_line *l, uint64_t line_no,
                          trak_track_kind_id kind) {
  uint32_t state;
  if (trak__systrace_u32(arg(l, "state"), &state)) {
    trak__systrace_unparsed(s, line_no, "a clock event without a state number");
    return;
  }
  trak_strv name = arg(l, "name");
  uint32_t track = trak__device_counter_track(s->imp, kind, name.s, name.len);
  trak__device_counter(s->imp, track, l->ts, (double)state);
}

/* thermal_temperature ("thermal_zone=cpu0-thermal id=1 temp_prev=41000 temp=42000"): temp, an
** int32, on "<thermal_zone> Temperature"; cdev_update ("type=thermal-cpufreq-0 target=2"):
** target, a real, on "<type> Cooling Device". The track is made before the value is read, as
** Perfetto makes it: a line whose value does not parse leaves an empty track. */
static void zone_counter(trak_systrace_import *s, const trak_systrace_line *l, uint64_t line_no,
                         int thermal) {
  trak_strv zone = arg(l, thermal ? "thermal_zone" : "type");
  uint32_t track = trak__device_counter_track(
      s->imp, thermal ? TRAK_TK_THERMAL_TEMPERATURE : TRAK_TK_COOLING_DEVICE_COUNTER, zone.s,
      zone.len);
  int32_t temp;
  double target;
  if (thermal ? trak__systrace_i32(arg(l, "temp"), &temp)
              : trak__systrace_double(arg(l, "target"), &target)) {
    trak__systrace_unparsed(s, line_no,
                            thermal ? "thermal_temperature without a temp number"
                                    : "cdev_update without a target number");
    trak__ftrace_track_made(s->imp, track, l->ts);
    return;
  }
  trak__device_counter(s->imp, track, l->ts, thermal ? (double)temp : target);
}

void trak__systrace_event_apply(trak_systrace_import *s, const trak_systrace_line *l,
                                uint64_t line_no) {
  trak_importer *imp = s->imp;
  /* The task names the thread, unless ftrace did not know its name ("<...>", see tracefs'
  ** saved_cmdlines); a TGID of digits ties it to its process ("-----": unknown). */
  uint32_t tgid = 0;
  int has_tgid = l->tgid.len && !strv_is(l->tgid, "-----") && !trak__systrace_u32(l->tgid, &tgid);
  trak__ftrace_thread_name(imp, l->ts, l->pid, has_tgid ? (int64_t)tgid : -1,
                           strv_is(l->task, "<...>") ? 0 : intern(imp, l->task));
  trak_strv e = l->event;
  if (strv_is(e, "sched_switch"))
    sched_switch(s, l, line_no);
  else if (strv_is(e, "tracing_mark_write") || strv_is(e, "0") || strv_is(e, "print"))
    trak__atrace_marker(imp, l->cpu, l->ts, l->pid, -1, l->args.s, l->args.len);
  else if (strv_is(e, "sched_waking"))
    sched_waking(s, l, line_no);
  else if (strv_is(e, "cpu_frequency"))
    cpu_counter(s, l, line_no, TRAK_TK_CPU_FREQUENCY);
  else if (strv_is(e, "cpu_frequency_limits"))
    freq_limits(s, l, line_no);
  else if (strv_is(e, "cpu_idle"))
    cpu_counter(s, l, line_no, TRAK_TK_CPU_IDLE);
  else if (strv_is(e, "clock_set_rate"))
    clock_counter(s, l, line_no, TRAK_TK_CLOCK_FREQUENCY);
  else if (strv_is(e, "clock_enable") || strv_is(e, "clock_disable"))
    clock_counter(s, l, line_no, TRAK_TK_CLOCK_STATE);
  else if (strv_is(e, "thermal_temperature"))
    zone_counter(s, l, line_no, 1);
  else if (strv_is(e, "cdev_update"))
    zone_counter(s, l, line_no, 0);
  else if (strv_is(e, "sched_blocked_reason"))
    blocked_reason(s, l, line_no);
  else if (strv_is(e, "rss_stat"))
    rss_stat(s, l, line_no);
  else if (strv_is(e, "workqueue_execute_start"))
    workqueue_start(s, l, line_no);
  else if (strv_is(e, "workqueue_execute_end"))
    trak__workqueue_end(imp, l->cpu, l->ts, l->pid);
}
