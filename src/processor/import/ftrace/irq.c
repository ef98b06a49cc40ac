/*
** This file holds interrupts as slices: irq_handler_entry/exit on each CPU's "Irq Cpu N" track
** (and x86's local_timer_entry/exit) and softirq_entry/exit on its "SoftIrq Cpu N" track,
** category "irq", as Perfetto's ftrace parser makes them (the exit's ret or vec becomes an arg
** of the slice), and the high-resolution timer callbacks run from them
** (hrtimer_expire_entry/exit) on "Hrtimer Cpu N", category "hrtimer".
*/
#include <stdio.h>

#include "processor/import/ftrace/ftrace_internal.h"

/* The kernel's softirq actions, by vec (include/linux/interrupt.h). */
static const char *const softirq_names[] = {"HI",       "TIMER",   "NET_TX", "NET_RX",  "BLOCK",
                                            "IRQ_POLL", "TASKLET", "SCHED",  "HRTIMER", "RCU"};

void trak__irq_entry(trak_importer *imp, uint32_t cpu, int64_t ts, const char *name, size_t len) {
  char buf[256];
  snprintf(buf, sizeof buf, "IRQ (%.*s)", (int)(len > 200 ? 200 : len), name);
  trak__ftrace_slice_ev(imp, ts, TRAK_EV_BEGIN, trak__ftrace_cpu_track(imp, TRAK_TK_CPU_IRQ, cpu),
                        trak__ftrace_str(imp, buf), trak__ftrace_str(imp, "irq"), TRAK_NULL_U32);
}

void trak__irq_exit(trak_importer *imp, uint32_t cpu, int64_t ts, int64_t ret) {
  uint32_t set = trak__ftrace_args_begin(imp);
  trak__ftrace_arg_str(imp, set, trak__ftrace_str(imp, "ret"),
                       trak__ftrace_str(imp, ret == 1 ? "handled" : "unhandled"));
  trak__ftrace_slice_ev(imp, ts, TRAK_EV_END, trak__ftrace_cpu_track(imp, TRAK_TK_CPU_IRQ, cpu), 0,
                        trak__ftrace_str(imp, "irq"), trak__args_share(imp, set));
}

void trak__local_timer_entry(trak_importer *imp, uint32_t cpu, int64_t ts) {
  trak__ftrace_slice_ev(imp, ts, TRAK_EV_BEGIN, trak__ftrace_cpu_track(imp, TRAK_TK_CPU_IRQ, cpu),
                        trak__ftrace_str(imp, "IRQ (LocalTimer)"), trak__ftrace_str(imp, "irq"),
                        TRAK_NULL_U32);
}

void trak__local_timer_exit(trak_importer *imp, uint32_t cpu, int64_t ts) {
  trak__ftrace_slice_ev(imp, ts, TRAK_EV_END, trak__ftrace_cpu_track(imp, TRAK_TK_CPU_IRQ, cpu), 0,
                        trak__ftrace_str(imp, "irq"), TRAK_NULL_U32);
}

void trak__softirq_entry(trak_importer *imp, uint32_t cpu, int64_t ts, uint64_t vec) {
  if (vec >= sizeof softirq_names / sizeof *softirq_names) return;
  trak__ftrace_slice_ev(
      imp, ts, TRAK_EV_BEGIN, trak__ftrace_cpu_track(imp, TRAK_TK_CPU_SOFTIRQ, cpu),
      trak__ftrace_str(imp, softirq_names[vec]), trak__ftrace_str(imp, "irq"), TRAK_NULL_U32);
}

void trak__softirq_exit(trak_importer *imp, uint32_t cpu, int64_t ts, int64_t vec) {
  uint32_t set = trak__ftrace_args_begin(imp);
  trak__ftrace_arg_int(imp, set, trak__ftrace_str(imp, "vec"), vec);
  trak__ftrace_slice_ev(imp, ts, TRAK_EV_END, trak__ftrace_cpu_track(imp, TRAK_TK_CPU_SOFTIRQ, cpu),
                        0, trak__ftrace_str(imp, "irq"), trak__args_share(imp, set));
}

void trak__hrtimer_entry(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t name) {
  trak__ftrace_slice_ev(imp, ts, TRAK_EV_BEGIN,
                        trak__ftrace_cpu_track(imp, TRAK_TK_CPU_HRTIMER, cpu), name,
                        trak__ftrace_str(imp, "hrtimer"), TRAK_NULL_U32);
}

void trak__hrtimer_exit(trak_importer *imp, uint32_t cpu, int64_t ts) {
  trak__ftrace_slice_ev(imp, ts, TRAK_EV_END, trak__ftrace_cpu_track(imp, TRAK_TK_CPU_HRTIMER, cpu),
                        0, trak__ftrace_str(imp, "hrtimer"), TRAK_NULL_U32);
}
