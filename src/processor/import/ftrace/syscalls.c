/*
** This file holds system calls as Perfetto's syscall tracker makes them from raw_syscalls'
** sys_enter/sys_exit: a slice on the calling thread's track named by the call ("sys_read", by
** the trace's architecture; "sys_N" where it names none), the call's arguments as args
** args[0..] and its return value as arg ret; sys_rt_sigreturn an instant (it never returns);
** a sys_write slice ends early at a print event of its thread, so that the atrace marker it
** writes nests.
*/
#include <stdio.h>
#include <string.h>

#include "processor/import/ftrace/ftrace_internal.h"
#include "processor/import/ftrace/syscall_names.h"
#include "processor/tables/arg_value.h"
#include "trak/protos.h"

/* Perfetto's bound on system call numbers: a larger one makes no slice. */
#define MAX_SYSCALLS 550u

void trak__sys_enter(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid, int64_t id,
                     const uint8_t *data, size_t len) {
  trak_ftrace *f = trak__ftrace_get(imp);
  if (len > UINT32_MAX) len = 0; /* an event is at most a page */
  size_t off = f->text.n;
  trak__grow((void **)&f->text.v, &f->text.cap, off + len + 1, 1);
  if (len) memcpy(f->text.v + off, data, len);
  f->text.n = off + len;
  trak_fq_rec r = {ts, (int64_t)off,    cpu, tid, (uint32_t)len, (uint32_t)id, 0, 0,
                   0,  TRAK_FQ_SYSCALL, 0,   0};
  trak__ftrace_cpu_seen(imp, cpu);
  trak__fq_push(imp, &r);
}

void trak__sys_exit(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid, int64_t id,
                    int has_ret, int64_t ret) {
  trak_fq_rec r = {ts, ret, cpu, tid, 0, (uint32_t)id, 0, 1, has_ret != 0, TRAK_FQ_SYSCALL, 0, 0};
  trak__ftrace_cpu_seen(imp, cpu);
  trak__fq_push(imp, &r);
}

/* The trace's architecture: its first machine's utsname machine, as Perfetto reads it. */
static trak_arch arch(trak_importer *imp) {
  trak_ftrace *f = imp->ftrace;
  if (f->arch) return (trak_arch)(f->arch - 1);
  trak_tables *t = imp->tables;
  const char *m = t->machine.n ? trak__str(&t->strings, t->machine.arch[0]) : NULL;
  trak_arch a = TRAK_ARCH_UNKNOWN;
  if (m && !strcmp(m, "aarch64"))
    a = TRAK_ARCH_ARM64;
  else if (m && (!strcmp(m, "armv8l") || !strcmp(m, "armv7l")))
    a = TRAK_ARCH_ARM32;
  else if (m && !strcmp(m, "x86_64"))
    a = TRAK_ARCH_X86_64;
  else if (m && !strcmp(m, "i686"))
    a = TRAK_ARCH_X86;
  f->arch = (uint8_t)(a + 1);
  return a;
}

/* The string id of call `number`'s name (0: a number past Perfetto's bound, no slice), made
** once per number: the names of sys_write and sys_rt_sigreturn are interned with the first. */
static uint32_t call_name(trak_importer *imp, uint32_t number) {
  if (number >= MAX_SYSCALLS) return 0;
  trak_ftrace *f = imp->ftrace;
  if (!f->call_names.n) {
    for (uint32_t i = 0; i < MAX_SYSCALLS; i++)
      trak_vec_push(f->call_names, 0);
    f->sys_write = trak__ftrace_str(imp, "sys_write");
    f->sys_sigreturn = trak__ftrace_str(imp, "sys_rt_sigreturn");
  }
  if (!f->call_names.v[number]) {
    const char *name = trak__syscall_name(arch(imp), number);
    char buf[24];
    if (!name || !*name) snprintf(buf, sizeof buf, "sys_%u", number), name = buf;
    f->call_names.v[number] = trak__ftrace_str(imp, name);
  }
  return f->call_names.v[number];
}

/* 1 while thread `utid` has a sys_write slice open; sets it to `open` (-1: unchanged). */
static int in_write(trak_importer *imp, uint32_t utid, int open) {
  trak_ftrace *f = imp->ftrace;
  while (f->in_sys_write.n <= utid)
    trak_vec_push(f->in_sys_write, 0);
  int was = f->in_sys_write.v[utid];
  if (open >= 0) f->in_sys_write.v[utid] = (uint8_t)open;
  return was;
}

/* The args of a sys_enter (its `args`, each unsigned, keys args[i] under flat key "args"), or
** TRAK_NULL_U32 when it has none. */
static uint32_t enter_args(trak_importer *imp, const uint8_t *data, size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  uint32_t set = trak__ftrace_args_begin(imp), flat = 0, i = 0;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number != TRAK_PB_SysEnterFtraceEvent_args || f.wire_type != TRAK_PB_WIRE_VARINT)
      continue;
    char key[24];
    snprintf(key, sizeof key, "args[%u]", i++);
    if (!flat) flat = trak__ftrace_str(imp, "args");
    uint32_t row = trak__arg_add(imp->tables, set, flat, trak__ftrace_str(imp, key), TRAK_ARG_UINT);
    trak__arg_set_int(imp->tables, row, (int64_t)f.value);
  }
  return trak__args_share(imp, set);
}

void trak__fa_syscall(trak_importer *imp, const trak_fq_rec *r) {
  uint32_t name = call_name(imp, r->s1);
  if (!name) return;
  uint32_t utid = trak__ftrace_utid(imp, r->pid);
  int is_write = name == imp->ftrace->sys_write;
  if (!r->p1) { /* enter */
    uint32_t set = enter_args(imp, (const uint8_t *)imp->ftrace->text.v + r->x, r->a);
    int instant = name == imp->ftrace->sys_sigreturn;
    trak__ftrace_slice_ev(imp, r->ts, instant ? TRAK_EV_INSTANT : TRAK_EV_BEGIN,
                          trak__legacy_thread_track(imp, utid), name, 0, set);
    if (is_write) in_write(imp, utid, 1);
    return;
  }
  if (is_write && !in_write(imp, utid, 0)) return; /* its enter was not seen (or was cut) */
  uint32_t set = TRAK_NULL_U32;
  if (r->p2) {
    set = trak__ftrace_args_begin(imp);
    trak__ftrace_arg_int(imp, set, trak__ftrace_str(imp, "ret"), r->x);
    set = trak__args_share(imp, set);
  }
  trak__ftrace_slice_ev(imp, r->ts, TRAK_EV_END, trak__legacy_thread_track(imp, utid), name, 0,
                        set);
}

void trak__syscall_write_cut(trak_importer *imp, int64_t ts, uint32_t tid) {
  if (!imp->ftrace->in_sys_write.n) return; /* no sys_write yet: nothing to cut */
  uint32_t utid = trak__thread_lookup(imp, tid);
  if (utid == TRAK_NULL_U32 || !in_write(imp, utid, 0)) return;
  imp->stats[TRAK_STAT_TRUNCATED_SYS_WRITE_DURATION]++;
  trak__ftrace_slice_ev(imp, ts, TRAK_EV_END, trak__legacy_thread_track(imp, utid),
                        imp->ftrace->sys_write, 0, TRAK_NULL_U32);
}
