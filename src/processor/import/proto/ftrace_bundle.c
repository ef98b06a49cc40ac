/*
** This file holds the protobuf front-end of Linux kernel data: TracePacket.ftrace_events
** (FtraceEventBundle: the CPU, per-event timestamp, pid and common_flags, the typed events trak
** models, compact_sched, lost_events) decoded and handed to the Linux event sink
** (import/ftrace/ftrace.h). Every event the sink does not model becomes a generic ftrace_event
** row whose args are the event's fields, named by the schema.
*/
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "pb/schema.h"
#include "processor/import/ftrace/ftrace.h"
#include "processor/import/importer.h"
#include "processor/import/proto/proto.h"
#include "processor/util/compact_sched.h"

/* The string id of a string field. */
static uint32_t intern(trak_importer *imp, const trak_pb_field *f) {
  return trak__strpool_intern(&imp->tables->strings, (const char *)f->data, f->len);
}

/* One typed event's fields, by number (up to 11), as Perfetto's decoders read them. */
typedef struct ev_fields {
  trak_pb_field f[12];
  uint16_t has;
} ev_fields;

/* The fields of typed event `ev` (a message) by number, below 12. */
static void fields_read(trak_importer *imp, const trak_pb_field *ev, ev_fields *out) {
  out->has = (uint16_t)trak__ftrace_event_fields(imp, ev, out->f, 12);
}
static int64_t num(const ev_fields *e, int n) {
  return e->has >> n & 1 ? (int64_t)e->f[n].value : 0;
}
static uint32_t str(trak_importer *imp, const ev_fields *e, int n) {
  return e->has >> n & 1 && e->f[n].wire_type == TRAK_PB_WIRE_LEN ? intern(imp, &e->f[n]) : 0;
}

/* Field n's bytes (*len of them) when it is there and length-delimited, else "" (0): a varint
** where the schema has a string carries no length. */
static const char *bytes(const ev_fields *e, int n, size_t *len) {
  int ok = e->has >> n & 1 && e->f[n].wire_type == TRAK_PB_WIRE_LEN;
  *len = ok ? e->f[n].len : 0;
  return ok ? (const char *)e->f[n].data : "";
}

/* The sum of the import's stats (a change: something was reported). */
static int64_t stats_sum(const trak_importer *imp) {
  int64_t sum = 0;
  for (int i = 0; i < TRAK_STAT_COUNT; i++)
    sum += imp->stats[i];
  return sum;
}

/* The args of a GenericFtraceEvent (an event written by name) into `a`, as Perfetto reads
** them: each field by its name, an int_value or a uint_value as a signed int (the first of
** int, uint, string it has), a field without a value left out. Sets *name to the event's name
** (event_name; "" without one). */
static void legacy_generic_args(trak_importer *imp, trak_fargs *a, const trak_pb_field *ev,
                                uint32_t *name) {
  trak_pb_decoder dec, fdec;
  trak_pb_field f, v;
  trak_pb_field empty = {0};
  empty.data = (const uint8_t *)"";
  *name = intern(imp, &empty);
  trak__dec_init(imp, &dec, ev->data, ev->len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.wire_type != TRAK_PB_WIRE_LEN) continue;
    if (f.number == TRAK_PB_GenericFtraceEvent_event_name) {
      *name = intern(imp, &f);
      continue;
    }
    if (f.number != TRAK_PB_GenericFtraceEvent_field) continue;
    trak_pb_field key = empty, iv = empty, uv = empty, sv = empty;
    int has = 0; /* bits: 1 int, 2 uint, 4 string */
    trak__dec_init(imp, &fdec, f.data, f.len);
    while (trak_pb_decoder_next(&fdec, &v) > 0) {
      int len = v.wire_type == TRAK_PB_WIRE_LEN;
      if (v.number == TRAK_PB_GenericFtraceEvent_Field_name && len)
        key = v;
      else if (v.number == TRAK_PB_GenericFtraceEvent_Field_int_value && !len)
        iv = v, has |= 1;
      else if (v.number == TRAK_PB_GenericFtraceEvent_Field_uint_value && !len)
        uv = v, has |= 2;
      else if (v.number == TRAK_PB_GenericFtraceEvent_Field_str_value && len)
        sv = v, has |= 4;
    }
    if (!has) continue;
    int64_t i = (int64_t)(has & 1 ? iv.value : uv.value);
    if (has & 3)
      trak__ftrace_fargs_add(imp, a, intern(imp, &key), TRAK_ARG_INT, i, 0, 0);
    else
      trak__ftrace_fargs_add(imp, a, intern(imp, &key), TRAK_ARG_STRING, 0, intern(imp, &sv), 0);
  }
}

/* (proto.h) As Perfetto's raw table keeps a field: a signed integer (bool and enum too) as int,
** an unsigned one as uint, a sint zigzag-decoded, a string or bytes as a string, a float or
** double as a real; a nested message, or a value whose wire type is not its type's, left out. */
void trak__ftrace_raw_field(trak_importer *imp, struct trak_fargs *a, uint32_t key, uint32_t type,
                            const trak_pb_field *f) {
  int len = f->wire_type == TRAK_PB_WIRE_LEN;
  trak_arg_type arg_type;
  int64_t i = (int64_t)f->value;
  uint32_t s = 0;
  double r = 0;
  switch (type) {
  case TRAK_PB_TYPE_INT32:
  case TRAK_PB_TYPE_INT64:
  case TRAK_PB_TYPE_SFIXED32:
  case TRAK_PB_TYPE_SFIXED64:
  case TRAK_PB_TYPE_BOOL:
  case TRAK_PB_TYPE_ENUM:
    if (len) return;
    arg_type = TRAK_ARG_INT;
    break;
  case TRAK_PB_TYPE_UINT32:
  case TRAK_PB_TYPE_UINT64:
  case TRAK_PB_TYPE_FIXED32:
  case TRAK_PB_TYPE_FIXED64:
    if (len) return;
    arg_type = TRAK_ARG_UINT;
    break;
  case TRAK_PB_TYPE_SINT32:
  case TRAK_PB_TYPE_SINT64:
    if (len) return;
    arg_type = TRAK_ARG_INT, i = (int64_t)(f->value >> 1) ^ -(int64_t)(f->value & 1);
    break;
  case TRAK_PB_TYPE_STRING:
  case TRAK_PB_TYPE_BYTES:
    if (!len) return;
    arg_type = TRAK_ARG_STRING, i = 0, s = intern(imp, f);
    break;
  case TRAK_PB_TYPE_DOUBLE:
    if (f->wire_type != TRAK_PB_WIRE_FIXED64) return;
    arg_type = TRAK_ARG_REAL, i = 0, memcpy(&r, &f->value, sizeof r);
    break;
  case TRAK_PB_TYPE_FLOAT: {
    if (f->wire_type != TRAK_PB_WIRE_FIXED32) return;
    uint32_t bits = (uint32_t)f->value;
    float x;
    memcpy(&x, &bits, sizeof x);
    arg_type = TRAK_ARG_REAL, i = 0, r = x;
    break;
  }
  default:
    return;
  }
  trak__ftrace_fargs_add(imp, a, key, arg_type, i, s, r);
}

static const trak_pb_message_desc *fe;   /* FtraceEvent */
static const trak_pb_field_desc **fe_by; /* its fields by number (fe_n of them), or NULL */
static uint32_t fe_n;
static pthread_once_t fe_once = PTHREAD_ONCE_INIT;

static void fe_init(void) {
  fe = trak__schema_message("FtraceEvent");
  if (!fe || !fe->n_fields) return;
  fe_n = fe->fields[fe->n_fields - 1].number + 1; /* sorted by number */
  fe_by = calloc(fe_n, sizeof *fe_by);            /* lives as long as the process */
  if (!fe_by) abort();
  for (uint32_t i = 0; i < fe->n_fields; i++)
    fe_by[fe->fields[i].number] = &fe->fields[i];
}

/* FtraceEvent fields from here on are self-describing events (ftrace_generic.c). */
#define GENERIC_EVENT_MIN 65536

/* The FtraceEvent field of number `n` (an event), or NULL: a look-up per event, not a search. */
static const trak_pb_field_desc *event_desc(uint32_t n) {
  pthread_once(&fe_once, fe_init);
  return n < fe_n ? fe_by[n] : NULL;
}

/* The generic ftrace_event row of typed event field `ev` (described by `fd`): returns its arg
** set (its fields as args, keys by the schema; an event whose bytes were seen before takes the
** arg set they made, trak__ftrace_args_cached; `hash`, when not NULL, is their
** trak__ftrace_args_hash) and sets *name to its name's string id and *ksyms to its kernel-symbol
** lookups (trak__ftrace_generic's). */
static uint32_t typed_row(trak_importer *imp, const trak_sequence *seq, const trak_pb_field *ev,
                          const trak_pb_field_desc *fd, const uint64_t *hash, uint32_t *name,
                          uint32_t *ksyms) {
  const uint8_t *key = ev->wire_type == TRAK_PB_WIRE_LEN && ev->len ? ev->data : NULL;
  size_t key_len = key ? ev->len : 0;
  /* Its kernel-symbol lookups: the function field's are counted in the one pass over the fields
  ** (ftrace_ksyms.c), or alone when the arg set is known. Where the sequence has symbols, the
  ** args depend on them as well as on the bytes: no cached set. */
  uint32_t parsed, kfield = trak__ftrace_ksym_field(ev->number, &parsed), raw = 0;
  int by_bytes = key && !(kfield && trak__ftrace_ksyms_known(seq));
  uint32_t set = !by_bytes ? TRAK_NULL_U32
                 : hash    ? trak__ftrace_args_cached_h(imp, *hash, ev->number, key, key_len)
                           : trak__ftrace_args_cached(imp, ev->number, key, key_len);
  uint64_t kvalue = 0; /* the function field's last value: the key its parser looks up */
  if (set != TRAK_NULL_U32) {
    raw = trak__ftrace_ksym_count(imp, seq, ev, kfield, &kvalue);
  } else {
    const trak_pb_message_desc *md = trak__schema_field_message(fd);
    int64_t reports = stats_sum(imp);
    trak_fargs a;
    trak__ftrace_fargs_begin(imp, &a);
    uint32_t begin = a.begin;
    if (md && ev->wire_type == TRAK_PB_WIRE_LEN) {
      trak_pb_decoder dec;
      trak_pb_field f;
      trak__dec_init(imp, &dec, ev->data, ev->len);
      while (trak_pb_decoder_next(&dec, &f) > 0) {
        const trak_pb_field_desc *sub = trak__schema_field_by_number(md, f.number);
        uint32_t sym = 0;
        if (f.number == kfield && kfield) {
          kvalue = f.value;
          sym = f.wire_type == TRAK_PB_WIRE_VARINT ? trak__ftrace_ksym(seq, f.value) : 0;
          if (!sym && raw < 255) raw++;
        }
        if (sub) {
          uint32_t key_id =
              trak__strpool_intern(&imp->tables->strings, sub->name, strlen(sub->name));
          if (sym) /* a symbol's name replaces its iid, as a string */
            trak__ftrace_fargs_add(imp, &a, key_id, TRAK_ARG_STRING, 0, sym, 0);
          else
            trak__ftrace_raw_field(imp, &a, key_id, sub->type, &f);
        }
      }
    } else {
      raw = trak__ftrace_ksym_count(imp, seq, ev, kfield, &kvalue);
    }
    set = trak__ftrace_fargs_close(imp, &a);
    if (stats_sum(imp) == reports && md && by_bytes)
      trak__ftrace_args_cache(imp, ev->number, key, key_len, set, begin);
  }
  if (parsed && trak__ftrace_ksym(seq, trak__ftrace_ksym_parsed_key(ev->number, kvalue)))
    parsed = 0; /* its parser finds the symbol */
  *name = trak__ftrace_event_name(imp, ev->number, fd->name);
  *ksyms = raw | parsed << 8;
  return set;
}

uint32_t trak__ftrace_typed_set(trak_importer *imp, const trak_sequence *seq,
                                const trak_pb_field *ev, uint32_t *name) {
  uint32_t ksyms;
  return typed_row(imp, seq, ev, event_desc(ev->number), NULL, name, &ksyms);
}

/* A generic ftrace_event row of event field `ev`: a typed event's (typed_row), a
** GenericFtraceEvent named by itself, a self-describing event's (ftrace_generic.c). */
static void generic(trak_importer *imp, const trak_sequence *seq, uint32_t cpu, int64_t ts,
                    uint32_t pid, int64_t flags, const trak_pb_field *ev) {
  if (ev->number >= GENERIC_EVENT_MIN) {
    trak__ftrace_generic_event(imp, cpu, ts, pid, flags, ev);
    return;
  }
  const trak_pb_field_desc *fd = event_desc(ev->number);
  if (!fd) {
    imp->stats[TRAK_STAT_PROTO_UNKNOWN_FIELD]++;
    return;
  }
  if (ev->number == TRAK_PB_FtraceEvent_generic) {
    uint32_t name;
    trak_fargs a;
    trak_pb_field none = {0}; /* not a message: an event without a name or fields */
    none.data = (const uint8_t *)"";
    trak__ftrace_fargs_begin(imp, &a);
    legacy_generic_args(imp, &a, ev->wire_type == TRAK_PB_WIRE_LEN ? ev : &none, &name);
    trak__ftrace_generic(imp, cpu, ts, pid, name, flags, trak__ftrace_fargs_close(imp, &a), 0);
    return;
  }
  uint32_t name, ksyms, set = typed_row(imp, seq, ev, fd, NULL, &name, &ksyms);
  trak__ftrace_generic(imp, cpu, ts, pid, name, flags, set, ksyms);
}

int trak__ftrace_event_head(trak_pb_decoder *dec, int64_t *ts, uint32_t *pid, int64_t *flags,
                            trak_pb_field *ev) {
  trak_pb_field f;
  int has_ev = 0;
  *ts = 0, *pid = 0, *flags = TRAK_FTRACE_NO_FLAGS;
  while (trak_pb_decoder_next(dec, &f) > 0) {
    if (f.number == TRAK_PB_FtraceEvent_timestamp)
      *ts = (int64_t)f.value;
    else if (f.number == TRAK_PB_FtraceEvent_pid)
      *pid = (uint32_t)f.value;
    else if (f.number == TRAK_PB_FtraceEvent_common_flags)
      *flags = (int64_t)(uint32_t)f.value;
    else
      *ev = f, has_ev = 1;
  }
  return has_ev;
}

/* An event's timestamp in the trace clock (boot time converted through `seq`, when given). */
static int64_t event_ts(trak_importer *imp, trak_sequence *seq, int64_t ts) {
  int64_t out;
  if (seq) trak__clock_cache_note(imp, TRAK_PB_BUILTIN_CLOCK_BOOTTIME, ts);
  if (seq && trak__clock_convert(imp, seq, TRAK_PB_BUILTIN_CLOCK_BOOTTIME, ts, &out) == 0) ts = out;
  return ts;
}

/* A comm field's string id (0: absent), through the comms' memo (import/ftrace/comm_ids.c). */
static uint32_t comm(trak_importer *imp, const ev_fields *e, int n) {
  return e->has >> n & 1 && e->f[n].wire_type == TRAK_PB_WIRE_LEN
             ? trak__ftrace_comm(imp, e->f[n].data, e->f[n].len)
             : 0;
}

/* A sched_switch read from its bytes. */
static void sched_switch(trak_importer *imp, uint32_t cpu, int64_t ts, int64_t flags,
                         const trak_pb_field *ev) {
  ev_fields e;
  fields_read(imp, ev, &e);
  trak__sched_switch(imp, cpu, ts, flags, (uint32_t)num(&e, 2), comm(imp, &e, 1),
                     (int32_t)num(&e, 3), num(&e, 4), (uint32_t)num(&e, 6), comm(imp, &e, 5),
                     (int32_t)num(&e, 7));
}

/* A sched_waking read from its bytes: its generic row and the waking, one record. */
static void sched_waking(trak_importer *imp, const trak_sequence *seq, uint32_t cpu, int64_t ts,
                         int64_t flags, uint32_t pid, const trak_pb_field *ev) {
  uint32_t name, ksyms, set = typed_row(imp, seq, ev, event_desc(ev->number), NULL, &name, &ksyms);
  ev_fields e;
  fields_read(imp, ev, &e);
  trak__sched_waking_raw(imp, cpu, ts, flags, pid, (uint32_t)num(&e, 2), comm(imp, &e, 1),
                         (int32_t)num(&e, 3), (uint32_t)num(&e, 5), name, set, ksyms);
}

/* One FtraceEvent of the bundle of `cpu`. */
static void event(trak_importer *imp, trak_sequence *seq, uint32_t cpu, const uint8_t *data,
                  size_t len) {
  trak_pb_decoder dec;
  trak_pb_field ev = {0};
  int64_t ts, flags;
  uint32_t pid;
  trak__dec_init(imp, &dec, data, len);
  if (!trak__ftrace_event_head(&dec, &ts, &pid, &flags, &ev)) {
    trak__report(imp, TRAK_STAT_FTRACE_MISSING_EVENT_ID, "ftrace event on cpu %u has no event",
                 cpu);
    return;
  }
  ts = event_ts(imp, seq, ts);
  ev_fields e;
  const char *s; /* a string field's bytes */
  size_t n;      /* and their length */
  switch (ev.number) {
  case TRAK_PB_FtraceEvent_sched_switch:
    sched_switch(imp, cpu, ts, flags, &ev);
    return;
  case TRAK_PB_FtraceEvent_sched_waking:
    sched_waking(imp, seq, cpu, ts, flags, pid, &ev);
    return;
  case TRAK_PB_FtraceEvent_task_newtask:
    generic(imp, seq, cpu, ts, pid, flags, &ev);
    fields_read(imp, &ev, &e);
    trak__task_newtask(imp, cpu, ts, pid, (uint32_t)num(&e, 1), str(imp, &e, 2),
                       (uint64_t)num(&e, 3));
    return;
  case TRAK_PB_FtraceEvent_task_rename:
    generic(imp, seq, cpu, ts, pid, flags, &ev);
    fields_read(imp, &ev, &e);
    trak__task_rename(imp, ts, (uint32_t)num(&e, 1), str(imp, &e, 3));
    return;
  case TRAK_PB_FtraceEvent_sched_process_free:
    generic(imp, seq, cpu, ts, pid, flags, &ev);
    fields_read(imp, &ev, &e);
    trak__process_free(imp, ts, (uint32_t)num(&e, 2));
    return;
  case TRAK_PB_FtraceEvent_sched_blocked_reason:
    generic(imp, seq, cpu, ts, pid, flags, &ev);
    fields_read(imp, &ev, &e);
    trak__sched_blocked_reason(
        imp, ts, (uint32_t)num(&e, 1), e.has >> 3 & 1 ? num(&e, 3) : -1,
        trak__ftrace_ksym(
            seq, trak__ftrace_ksym_parsed_key(
                     ev.number, (uint64_t)num(&e, TRAK_PB_SchedBlockedReasonFtraceEvent_caller))));
    return;
  case TRAK_PB_FtraceEvent_cpu_frequency:
  case TRAK_PB_FtraceEvent_cpu_idle:
    generic(imp, seq, cpu, ts, pid, flags, &ev);
    fields_read(imp, &ev, &e);
    trak__cpu_counter(
        imp, ev.number == TRAK_PB_FtraceEvent_cpu_idle ? TRAK_TK_CPU_IDLE : TRAK_TK_CPU_FREQUENCY,
        (uint32_t)num(&e, 2), ts, (double)(uint32_t)num(&e, 1));
    return;
  case TRAK_PB_FtraceEvent_cpu_frequency_limits: /* both limits, 0 when a field is absent */
    generic(imp, seq, cpu, ts, pid, flags, &ev);
    fields_read(imp, &ev, &e);
    trak__cpu_counter(imp, TRAK_TK_CPU_MAX_FREQ_LIMIT, (uint32_t)num(&e, 3), ts,
                      (double)(uint32_t)num(&e, 2));
    trak__cpu_counter(imp, TRAK_TK_CPU_MIN_FREQ_LIMIT, (uint32_t)num(&e, 3), ts,
                      (double)(uint32_t)num(&e, 1));
    return;
  case TRAK_PB_FtraceEvent_thermal_temperature: /* temp on "<thermal_zone> Temperature" */
    generic(imp, seq, cpu, ts, pid, flags, &ev);
    fields_read(imp, &ev, &e);
    s = bytes(&e, TRAK_PB_ThermalTemperatureFtraceEvent_thermal_zone, &n);
    trak__device_counter(imp, trak__device_counter_track(imp, TRAK_TK_THERMAL_TEMPERATURE, s, n),
                         ts, (double)(int32_t)num(&e, TRAK_PB_ThermalTemperatureFtraceEvent_temp));
    return;
  case TRAK_PB_FtraceEvent_cdev_update: /* target on "<type> Cooling Device" */
    generic(imp, seq, cpu, ts, pid, flags, &ev);
    fields_read(imp, &ev, &e);
    s = bytes(&e, TRAK_PB_CdevUpdateFtraceEvent_type, &n);
    trak__device_counter(imp, trak__device_counter_track(imp, TRAK_TK_COOLING_DEVICE_COUNTER, s, n),
                         ts, (double)(uint64_t)num(&e, TRAK_PB_CdevUpdateFtraceEvent_target));
    return;
  case TRAK_PB_FtraceEvent_devfreq_frequency: /* freq on "devfreq_<device>" */
    generic(imp, seq, cpu, ts, pid, flags, &ev);
    fields_read(imp, &ev, &e);
    s = bytes(&e, TRAK_PB_DevfreqFrequencyFtraceEvent_dev_name, &n);
    trak__device_counter(imp,
                         trak__device_counter_track(imp, TRAK_TK_LINUX_DEVICE_FREQUENCY, s, n), ts,
                         (double)(uint64_t)num(&e, TRAK_PB_DevfreqFrequencyFtraceEvent_freq));
    return;
  case TRAK_PB_FtraceEvent_clock_set_rate: /* state on "<name> Frequency" */
  case TRAK_PB_FtraceEvent_clock_enable:   /* state on "<name> State"; the three share fields */
  case TRAK_PB_FtraceEvent_clock_disable:
    generic(imp, seq, cpu, ts, pid, flags, &ev);
    fields_read(imp, &ev, &e);
    s = bytes(&e, TRAK_PB_ClockSetRateFtraceEvent_name, &n);
    trak__device_counter(imp,
                         trak__device_counter_track(imp,
                                                    ev.number == TRAK_PB_FtraceEvent_clock_set_rate
                                                        ? TRAK_TK_CLOCK_FREQUENCY
                                                        : TRAK_TK_CLOCK_STATE,
                                                    s, n),
                         ts, (double)(uint64_t)num(&e, TRAK_PB_ClockSetRateFtraceEvent_state));
    return;
  case TRAK_PB_FtraceEvent_mark_victim: /* the OOM killer's victim: an instant on its thread */
    generic(imp, seq, cpu, ts, pid, flags, &ev);
    fields_read(imp, &ev, &e);
    trak__oom_victim(imp, cpu, ts, (uint32_t)num(&e, TRAK_PB_MarkVictimFtraceEvent_pid));
    return;
  case TRAK_PB_FtraceEvent_kprobe_event:
    generic(imp, seq, cpu, ts, pid, flags, &ev);
    fields_read(imp, &ev, &e);
    trak__kprobe(imp, cpu, ts, pid, num(&e, TRAK_PB_KprobeEvent_type),
                 str(imp, &e, TRAK_PB_KprobeEvent_name));
    return;
  case TRAK_PB_FtraceEvent_print:
    generic(imp, seq, cpu, ts, pid, flags, &ev);
    fields_read(imp, &ev, &e);
    if (e.has >> 2 & 1) {
      s = bytes(&e, 2, &n);
      trak__atrace_marker(imp, cpu, ts, pid, -1, s, n);
    }
    return;
  case TRAK_PB_FtraceEvent_irq_handler_entry:
    generic(imp, seq, cpu, ts, pid, flags, &ev);
    fields_read(imp, &ev, &e);
    s = bytes(&e, 2, &n);
    trak__irq_entry(imp, cpu, ts, s, n);
    return;
  case TRAK_PB_FtraceEvent_irq_handler_exit:
    generic(imp, seq, cpu, ts, pid, flags, &ev);
    fields_read(imp, &ev, &e);
    trak__irq_exit(imp, cpu, ts, (int32_t)num(&e, 2));
    return;
  case TRAK_PB_FtraceEvent_softirq_entry:
  case TRAK_PB_FtraceEvent_softirq_exit:
    generic(imp, seq, cpu, ts, pid, flags, &ev);
    fields_read(imp, &ev, &e);
    if (ev.number == TRAK_PB_FtraceEvent_softirq_entry)
      trak__softirq_entry(imp, cpu, ts, (uint32_t)num(&e, 1));
    else
      trak__softirq_exit(imp, cpu, ts, (uint32_t)num(&e, 1));
    return;
  case TRAK_PB_FtraceEvent_local_timer_entry:
    generic(imp, seq, cpu, ts, pid, flags, &ev);
    trak__local_timer_entry(imp, cpu, ts);
    return;
  case TRAK_PB_FtraceEvent_local_timer_exit:
    generic(imp, seq, cpu, ts, pid, flags, &ev);
    trak__local_timer_exit(imp, cpu, ts);
    return;
  case TRAK_PB_FtraceEvent_suspend_resume:
    generic(imp, seq, cpu, ts, pid, flags, &ev);
    fields_read(imp, &ev, &e);
    s = bytes(&e, 1, &n);
    trak__suspend_resume(imp, cpu, ts, pid, s, n, (int32_t)num(&e, 2), num(&e, 3) != 0);
    return;
  case TRAK_PB_FtraceEvent_wakeup_source_activate:
  case TRAK_PB_FtraceEvent_wakeup_source_deactivate: /* the two share their fields */
    generic(imp, seq, cpu, ts, pid, flags, &ev);
    fields_read(imp, &ev, &e);
    s = bytes(&e, TRAK_PB_WakeupSourceActivateFtraceEvent_name, &n);
    trak__wakesource(imp, cpu, ts, s, n, ev.number == TRAK_PB_FtraceEvent_wakeup_source_activate);
    return;
  case TRAK_PB_FtraceEvent_rss_stat: /* curr and mm_id, when both are there, name the mm */
    generic(imp, seq, cpu, ts, pid, flags, &ev);
    fields_read(imp, &ev, &e);
    trak__rss_stat(imp, ts, pid, (uint32_t)(int32_t)num(&e, 1), num(&e, 2),
                   (e.has >> 3 & 1) && (e.has >> 4 & 1) ? num(&e, 3) != 0 : -1,
                   (uint32_t)num(&e, 4));
    return;
  case TRAK_PB_FtraceEvent_rss_stat_throttled:
    generic(imp, seq, cpu, ts, pid, flags, &ev);
    fields_read(imp, &ev, &e);
    trak__rss_stat(imp, ts, pid, (uint32_t)(int32_t)num(&e, 2), num(&e, 4), num(&e, 1) != 0,
                   (uint32_t)num(&e, 3));
    return;
  case TRAK_PB_FtraceEvent_oom_score_adj_update:
    generic(imp, seq, cpu, ts, pid, flags, &ev);
    fields_read(imp, &ev, &e);
    trak__oom_score_adj(imp, ts, (uint32_t)num(&e, 3), num(&e, 2));
    return;
  case TRAK_PB_FtraceEvent_signal_generate:
    generic(imp, seq, cpu, ts, pid, flags, &ev);
    fields_read(imp, &ev, &e);
    trak__signal(imp, cpu, ts, (uint32_t)num(&e, TRAK_PB_SignalGenerateFtraceEvent_pid), 0,
                 (int32_t)num(&e, TRAK_PB_SignalGenerateFtraceEvent_sig));
    return;
  case TRAK_PB_FtraceEvent_signal_deliver:
    generic(imp, seq, cpu, ts, pid, flags, &ev);
    fields_read(imp, &ev, &e);
    trak__signal(imp, cpu, ts, pid, 1, (int32_t)num(&e, TRAK_PB_SignalDeliverFtraceEvent_sig));
    return;
  case TRAK_PB_FtraceEvent_workqueue_execute_start:
    generic(imp, seq, cpu, ts, pid, flags, &ev);
    fields_read(imp, &ev, &e);
    trak__workqueue_start(
        imp, cpu, ts, pid,
        trak__ftrace_ksym_name(
            imp, seq, (uint64_t)num(&e, TRAK_PB_WorkqueueExecuteStartFtraceEvent_function)),
        1);
    return;
  case TRAK_PB_FtraceEvent_workqueue_execute_end:
    generic(imp, seq, cpu, ts, pid, flags, &ev);
    trak__workqueue_end(imp, cpu, ts, pid);
    return;
  case TRAK_PB_FtraceEvent_hrtimer_expire_entry:
    generic(imp, seq, cpu, ts, pid, flags, &ev);
    fields_read(imp, &ev, &e);
    trak__hrtimer_entry(
        imp, cpu, ts,
        trak__ftrace_ksym_name(imp, seq,
                               (uint64_t)num(&e, TRAK_PB_HrtimerExpireEntryFtraceEvent_function)));
    return;
  case TRAK_PB_FtraceEvent_hrtimer_expire_exit:
    generic(imp, seq, cpu, ts, pid, flags, &ev);
    trak__hrtimer_exit(imp, cpu, ts);
    return;
  case TRAK_PB_FtraceEvent_mm_vmscan_direct_reclaim_begin:
    generic(imp, seq, cpu, ts, pid, flags, &ev);
    fields_read(imp, &ev, &e);
    trak__direct_reclaim_begin(
        imp, cpu, ts, pid, (int32_t)num(&e, TRAK_PB_MmVmscanDirectReclaimBeginFtraceEvent_order),
        (int32_t)num(&e, TRAK_PB_MmVmscanDirectReclaimBeginFtraceEvent_may_writepage),
        (uint32_t)num(&e, TRAK_PB_MmVmscanDirectReclaimBeginFtraceEvent_gfp_flags));
    return;
  case TRAK_PB_FtraceEvent_mm_vmscan_direct_reclaim_end:
    generic(imp, seq, cpu, ts, pid, flags, &ev);
    fields_read(imp, &ev, &e);
    trak__direct_reclaim_end(
        imp, cpu, ts, pid,
        (uint64_t)num(&e, TRAK_PB_MmVmscanDirectReclaimEndFtraceEvent_nr_reclaimed));
    return;
  case TRAK_PB_FtraceEvent_mm_shrink_slab_start:
    generic(imp, seq, cpu, ts, pid, flags, &ev);
    fields_read(imp, &ev, &e);
    trak__shrink_slab_start(
        imp, cpu, ts, pid,
        trak__ftrace_ksym_name(imp, seq,
                               (uint64_t)num(&e, TRAK_PB_MmShrinkSlabStartFtraceEvent_shrink)),
        (uint64_t)num(&e, TRAK_PB_MmShrinkSlabStartFtraceEvent_total_scan),
        (int32_t)num(&e, TRAK_PB_MmShrinkSlabStartFtraceEvent_priority));
    return;
  case TRAK_PB_FtraceEvent_mm_shrink_slab_end:
    generic(imp, seq, cpu, ts, pid, flags, &ev);
    fields_read(imp, &ev, &e);
    trak__shrink_slab_end(imp, cpu, ts, pid,
                          (int32_t)num(&e, TRAK_PB_MmShrinkSlabEndFtraceEvent_retval));
    return;
  case TRAK_PB_FtraceEvent_block_io_start:
  case TRAK_PB_FtraceEvent_block_io_done:
    generic(imp, seq, cpu, ts, pid, flags, &ev);
    fields_read(imp, &ev, &e);
    if (ev.number == TRAK_PB_FtraceEvent_block_io_start)
      trak__block_io_start(imp, ts, (uint64_t)num(&e, TRAK_PB_BlockIoStartFtraceEvent_dev),
                           (uint64_t)num(&e, TRAK_PB_BlockIoStartFtraceEvent_sector));
    else
      trak__block_io_done(imp, ts, (uint64_t)num(&e, TRAK_PB_BlockIoDoneFtraceEvent_dev),
                          (uint64_t)num(&e, TRAK_PB_BlockIoDoneFtraceEvent_sector));
    return;
  case TRAK_PB_FtraceEvent_sys_enter:
    generic(imp, seq, cpu, ts, pid, flags, &ev);
    fields_read(imp, &ev, &e);
    trak__sys_enter(imp, cpu, ts, pid, num(&e, TRAK_PB_SysEnterFtraceEvent_id),
                    ev.wire_type == TRAK_PB_WIRE_LEN ? ev.data : NULL,
                    ev.wire_type == TRAK_PB_WIRE_LEN ? ev.len : 0);
    return;
  case TRAK_PB_FtraceEvent_sys_exit:
    generic(imp, seq, cpu, ts, pid, flags, &ev);
    fields_read(imp, &ev, &e);
    trak__sys_exit(imp, cpu, ts, pid, num(&e, TRAK_PB_SysExitFtraceEvent_id),
                   e.has >> TRAK_PB_SysExitFtraceEvent_ret & 1,
                   num(&e, TRAK_PB_SysExitFtraceEvent_ret));
    return;
  default:
    generic(imp, seq, cpu, ts, pid, flags, &ev);
    if (!trak__ftrace_device_event(imp, seq, cpu, ts, pid, flags, &ev) && /* 0: not one it reads */
        !trak__ftrace_graphics_event(imp, cpu, ts, pid, &ev))
      trak__ftrace_kernel_marker(imp, cpu, ts, pid, &ev); /* 0 for the kinds it does not read */
    return;
  }
}

/* compact_sched's events of the bundle of `cpu` queued one record each (their timestamps
** converted one by one); returns 1 when the walks met Perfetto's parse errors. */
static int compact_records(trak_importer *imp, trak_sequence *seq, uint32_t cpu,
                           const trak_compact_sched *cs, const uint32_t *ids) {
  trak_compact_iter it;
  trak_compact_switch sw;
  int64_t out;
  trak__compact_switch_begin(&it, cs);
  while (trak__compact_switch_next(&it, &sw)) {
    int64_t ts = sw.ts;
    trak__clock_cache_note(imp, TRAK_PB_BUILTIN_CLOCK_BOOTTIME, ts);
    if (seq && trak__clock_convert(imp, seq, TRAK_PB_BUILTIN_CLOCK_BOOTTIME, ts, &out) == 0)
      ts = out;
    trak__sched_switch_compact(imp, cpu, ts, sw.prev_state, (uint32_t)sw.next_pid,
                               ids[sw.next_comm_index], sw.next_prio);
  }
  int bad = trak__compact_iter_bad(&it);
  trak_compact_waking wk;
  trak__compact_waking_begin(&it, cs);
  while (!bad && trak__compact_waking_next(&it, &wk)) {
    int64_t ts = wk.ts;
    trak__clock_cache_note(imp, TRAK_PB_BUILTIN_CLOCK_BOOTTIME, ts);
    if (seq && trak__clock_convert(imp, seq, TRAK_PB_BUILTIN_CLOCK_BOOTTIME, ts, &out) == 0)
      ts = out;
    /* without waking_common_flags (older recorders) Perfetto takes flags 0: irq_context 0 */
    trak__sched_waking_compact(imp, cpu, ts, wk.common_flags, (uint32_t)wk.pid, ids[wk.comm_index],
                               wk.prio, wk.target_cpu);
  }
  return bad || trak__compact_iter_bad(&it);
}

/* The runs path converts no timestamp: Perfetto's conversions of the bundle's events are noted
** by its first (the rest convert as it does, from the same cache entry, on any usual trace). */
static void compact_note(trak_importer *imp, const trak_compact_sched *cs) {
  trak_compact_iter it;
  trak_compact_switch sw;
  trak_compact_waking wk;
  trak__compact_switch_begin(&it, cs);
  if (trak__compact_switch_next(&it, &sw)) {
    trak__clock_cache_note(imp, TRAK_PB_BUILTIN_CLOCK_BOOTTIME, sw.ts);
    return;
  }
  trak__compact_waking_begin(&it, cs);
  if (trak__compact_waking_next(&it, &wk))
    trak__clock_cache_note(imp, TRAK_PB_BUILTIN_CLOCK_BOOTTIME, wk.ts);
}

/* compact_sched of the bundle of `cpu`: switches then wakings, each timestamp a running sum;
** `counted` (NULL: none) its two kinds' counts as the decoding thread made them. */
static void compact(trak_importer *imp, trak_sequence *seq, uint32_t cpu, const uint8_t *data,
                    size_t len, const trak_compact_count *counted) {
  trak_compact_sched cs;
  if (trak__compact_sched_open(&cs, data, len)) abort();
  uint32_t *ids = calloc(cs.n_intern ? cs.n_intern : 1, sizeof *ids);
  if (!ids) abort();
  for (size_t i = 0; i < cs.n_intern; i++)
    ids[i] = trak__ftrace_comm(imp, (const uint8_t *)cs.intern[i].s, cs.intern[i].len);
  /* In the trace clock already (it is BOOTTIME), the events stay encoded until the merge. */
  int runs = !seq || imp->trace_clock == TRAK_PB_BUILTIN_CLOCK_BOOTTIME;
  if (seq && runs && TRAK_UNLIKELY(imp->clock_cache_fast.key != TRAK_PB_BUILTIN_CLOCK_BOOTTIME))
    compact_note(imp, &cs);
  int bad =
      runs ? trak__sched_compact_runs(imp, cpu, &cs, data, len, ids, cs.n_intern, counted) : -1;
  if (bad < 0) bad = compact_records(imp, seq, cpu, &cs, ids);
  if (bad)
    trak__report(imp, TRAK_STAT_COMPACT_SCHED_HAS_PARSE_ERRORS,
                 "compact_sched of cpu %u has arrays of unequal length or a "
                 "bad intern index",
                 cpu);
  free(ids);
  trak__compact_sched_close(&cs);
}

/* A varint field of a plain event (0: absent), and a string field's id (si: its index in s). */
static int64_t pre_num(const trak_fpre_ev *e, int n) {
  return e->has >> n & 1 ? e->v[n] : 0;
}
static uint32_t pre_comm(trak_importer *imp, const trak_fpre_ev *e, int n, int si) {
  return e->has >> n & 1 ? trak__ftrace_comm(imp, e->s[si], e->s_len[si]) : 0;
}

/* A plain sched_switch as the decoding thread decoded it: as sched_switch reads its bytes. */
static void sched_switch_pre(trak_importer *imp, uint32_t cpu, int64_t ts, const trak_fpre_ev *e) {
  trak__sched_switch(imp, cpu, ts, e->flags, (uint32_t)pre_num(e, 2), pre_comm(imp, e, 1, 0),
                     (int32_t)pre_num(e, 3), pre_num(e, 4), (uint32_t)pre_num(e, 6),
                     pre_comm(imp, e, 5, 1), (int32_t)pre_num(e, 7));
}

/* A plain sched_waking as the decoding thread decoded it: as sched_waking reads its bytes. */
static void sched_waking_pre(trak_importer *imp, const trak_sequence *seq, uint32_t cpu, int64_t ts,
                             const trak_fpre_ev *e) {
  trak_pb_field ev = {0};
  ev.number = TRAK_PB_FtraceEvent_sched_waking;
  ev.wire_type = TRAK_PB_WIRE_LEN, ev.data = e->data, ev.len = e->len;
  uint64_t hash = (uint64_t)e->v[0]; /* made on the decoding thread */
  uint32_t name, ksyms, set = typed_row(imp, seq, &ev, event_desc(ev.number), &hash, &name, &ksyms);
  trak__sched_waking_raw(imp, cpu, ts, e->flags, e->pid, (uint32_t)pre_num(e, 2),
                         pre_comm(imp, e, 1, 0), (int32_t)pre_num(e, 3), (uint32_t)pre_num(e, 5),
                         name, set, ksyms);
}

/* A bundle as the decoding thread decoded it: what trak__ftrace_bundle does with its fields. */
static void bundle_pre(trak_importer *imp, trak_sequence *seq, const trak_fpre *b) {
  uint32_t cpu = b->cpu;
  trak__ftrace_cpu_seen(imp, cpu);
  trak__ftrace_bundle_cpu(imp, cpu);
  for (size_t i = 0; i < b->n; i++) {
    const trak_fpre_ev *e = &b->evs[i];
    switch (e->kind) {
    case TRAK_FPRE_EVENT:
      event(imp, seq, cpu, e->data, e->len);
      break;
    case TRAK_FPRE_COMPACT: {
      trak_compact_count c[2];
      for (int k = 0; k < 2; k++)
        c[k] = (trak_compact_count){(size_t)e->v[4 * k], e->v[4 * k + 1], e->v[4 * k + 2],
                                    (int)e->v[4 * k + 3]};
      compact(imp, seq, cpu, e->data, e->len, e->has ? c : NULL);
      break;
    }
    case TRAK_FPRE_LOST:
      trak__ftrace_cpu_loss(imp, cpu);
      break;
    case TRAK_FPRE_SWITCH:
      sched_switch_pre(imp, cpu, event_ts(imp, seq, e->ts), e);
      break;
    default: /* TRAK_FPRE_WAKING */
      sched_waking_pre(imp, seq, cpu, event_ts(imp, seq, e->ts), e);
      break;
    }
  }
  trak__ftrace_bundle_cpu(imp, -1);
}

void trak__ftrace_bundle(trak_importer *imp, trak_sequence *seq, const uint8_t *data, size_t len) {
  const trak_fpre *pre = imp->ftrace_pre;
  if (pre && pre->data == data && pre->len == len) {
    bundle_pre(imp, seq, pre);
    return;
  }
  trak_pb_decoder dec;
  trak_pb_field f;
  uint32_t cpu = 0;
  trak__dec_init(imp, &dec, data, len);
  /* the cpu, and the descriptors of self-describing events, may follow the events */
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number == TRAK_PB_FtraceEventBundle_cpu) cpu = (uint32_t)f.value;
    if (f.number == TRAK_PB_FtraceEventBundle_generic_event_descriptors &&
        f.wire_type == TRAK_PB_WIRE_LEN)
      trak__ftrace_generic_descriptor(imp, f.data, f.len);
  }
  trak__ftrace_cpu_seen(imp, cpu);
  trak__ftrace_bundle_cpu(imp, cpu);
  trak__dec_init(imp, &dec, data, len);
  int rc;
  while ((rc = trak_pb_decoder_next(&dec, &f)) > 0) {
    if (f.number == TRAK_PB_FtraceEventBundle_event && f.wire_type == TRAK_PB_WIRE_LEN)
      event(imp, seq, cpu, f.data, f.len);
    else if (f.number == TRAK_PB_FtraceEventBundle_compact_sched && f.wire_type == TRAK_PB_WIRE_LEN)
      compact(imp, seq, cpu, f.data, f.len, NULL);
    else if (f.number == TRAK_PB_FtraceEventBundle_lost_events && f.value)
      trak__ftrace_cpu_loss(imp, cpu);
  }
  trak__ftrace_bundle_cpu(imp, -1);
  if (rc < 0)
    trak__report(imp, TRAK_STAT_FTRACE_BUNDLE_TOKENIZER_ERRORS,
                 "ftrace bundle of cpu %u is malformed at byte %zu; the rest was skipped", cpu,
                 (size_t)dec.error_offset);
}
