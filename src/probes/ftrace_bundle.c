/*
** This file turns decoded ring buffer records into FtraceEventBundle packets: each event as
** FtraceEvent's typed member (fields matched to the kernel's by name through the generated
** schema, so no field number is typed here) or as GenericFtraceEvent, sched_switch and
** sched_waking optionally as CompactSched columns, and a bundle closed when it reaches
** TRAK__BUNDLE_MAX bytes so that every packet fits a shared-memory chunk.
*/
#include <stdlib.h>
#include <string.h>

#include "pb/schema.h"
#include "probes/ftrace.h"
#include "trak/protos.h"

void trak__ftrace_format_translate(trak__ftrace_format *f) {
  f->proto_event = 0;
  f->compact = !strcmp(f->name, "sched_switch") ? 1 : !strcmp(f->name, "sched_waking") ? 2 : 0;
  const trak_pb_message_desc *ev = trak__schema_message("FtraceEvent");
  const trak_pb_field_desc *m =
      ev ? trak__schema_field_by_name(ev, f->name, strlen(f->name)) : NULL;
  const trak_pb_message_desc *sub =
      m && m->type == TRAK_PB_TYPE_MESSAGE && m->number != TRAK_PB_FtraceEvent_generic
          ? trak__schema_field_message(m)
          : NULL;
  if (sub) f->proto_event = m->number;
  for (uint32_t i = 0; i < f->nfields; i++) {
    trak__ftrace_field *fd = &f->fields[i];
    const trak_pb_field_desc *pf =
        sub ? trak__schema_field_by_name(sub, fd->name, strlen(fd->name)) : NULL;
    fd->proto_number = pf ? pf->number : 0;
    fd->proto_type = pf ? pf->type : 0;
  }
}

int trak__ftrace_table_add(trak__ftrace_table *t, trak__ftrace_format *f) {
  if (f->id >= t->nids) {
    uint32_t n = f->id + 64;
    trak__ftrace_format **v = realloc(t->by_id, n * sizeof *v);
    if (!v) return TRAK_ENOMEM;
    memset(v + t->nids, 0, (n - t->nids) * sizeof *v);
    t->by_id = v;
    t->nids = n;
  }
  t->by_id[f->id] = f;
  return 0;
}

void trak__ftrace_table_free(trak__ftrace_table *t) {
  free(t->by_id);
  t->by_id = NULL;
  t->nids = 0;
}

/* ---- field values ---- */

/* The integer of `size` bytes at p, sign-extended when `sign`. */
static inline uint64_t load_int(const uint8_t *p, unsigned size, int sign) {
  switch (size) {
  case 1:
    return sign ? (uint64_t)(int64_t)(int8_t)p[0] : p[0];
  case 2: {
    uint16_t v;
    memcpy(&v, p, 2);
    return sign ? (uint64_t)(int64_t)(int16_t)v : v;
  }
  case 4: {
    uint32_t v;
    memcpy(&v, p, 4);
    return sign ? (uint64_t)(int64_t)(int32_t)v : v;
  }
  default: {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
  }
  }
}

/* The text of a string field within the record [rec, rec + len): *s and *n (without the
** trailing NUL padding). Returns 0, or -1 when the field points outside the record. */
static int field_text(const trak__ftrace_field *fd, const uint8_t *rec, size_t len, const char **s,
                      size_t *n) {
  size_t off, max;
  if (fd->kind == TRAK__FT_CSTR) {
    off = fd->offset;
    max = fd->size;
  } else if (fd->kind == TRAK__FT_TAILSTR) {
    off = fd->offset;
    max = off <= len ? len - off : 0;
  } else { /* DATALOC */
    if ((size_t)fd->offset + 4 > len) return -1;
    uint32_t loc = (uint32_t)load_int(rec + fd->offset, 4, 0);
    off = loc & 0xffff;
    max = loc >> 16;
  }
  if (off > len || max > len - off) return -1;
  const char *t = (const char *)rec + off;
  const char *z = memchr(t, 0, max);
  *s = t;
  *n = z ? (size_t)(z - t) : max;
  return 0;
}

/* One field into a typed member: an integer by its proto type, a string as is. */
static void put_typed(trak_pb_buf *b, const trak__ftrace_field *fd, const uint8_t *rec,
                      size_t len) {
  if (fd->kind == TRAK__FT_INT) {
    if ((size_t)fd->offset + fd->size > len) return;
    uint64_t v = load_int(rec + fd->offset, fd->size, fd->is_signed);
    switch (fd->proto_type) {
    case TRAK_PB_TYPE_INT32:
    case TRAK_PB_TYPE_INT64:
    case TRAK_PB_TYPE_UINT64:
    case TRAK_PB_TYPE_BOOL:
    case TRAK_PB_TYPE_ENUM:
      trak_pb_put_varint(b, fd->proto_number, v);
      break;
    case TRAK_PB_TYPE_UINT32:
      trak_pb_put_varint(b, fd->proto_number, (uint32_t)v);
      break;
    case TRAK_PB_TYPE_SINT32:
    case TRAK_PB_TYPE_SINT64:
      trak_pb_put_varint(b, fd->proto_number, trak_pb_zigzag64((int64_t)v));
      break;
    default:
      break; /* a pointer where the schema wants text, say */
    }
  } else if (fd->kind == TRAK__FT_INTARRAY) {
    if (fd->proto_type != TRAK_PB_TYPE_UINT64 && fd->proto_type != TRAK_PB_TYPE_INT64) return;
    if ((size_t)fd->offset + fd->size > len) return;
    for (unsigned i = 0; i + fd->elem <= fd->size; i += fd->elem)
      trak_pb_put_varint(b, fd->proto_number, load_int(rec + fd->offset + i, fd->elem, 0));
  } else if (fd->kind != TRAK__FT_OTHER && fd->proto_type == TRAK_PB_TYPE_STRING) {
    const char *s;
    size_t n;
    if (!field_text(fd, rec, len, &s, &n)) trak_pb_put_bytes(b, fd->proto_number, s, n);
  }
}

/* One field as GenericFtraceEvent.Field. */
static void put_generic(trak_pb_buf *b, const trak__ftrace_field *fd, const uint8_t *rec,
                        size_t len) {
  const char *s;
  size_t n;
  if (fd->kind == TRAK__FT_OTHER) return;
  trak_pb_nested g = trak_pb_begin_nested_short(b, TRAK_PB_GenericFtraceEvent_field);
  trak_pb_put_string(b, TRAK_PB_GenericFtraceEvent_Field_name, fd->name);
  if (fd->kind == TRAK__FT_INT || fd->kind == TRAK__FT_INTARRAY) {
    /* An array gives its first element (as Perfetto's generic form keeps one value). */
    if ((size_t)fd->offset + (fd->kind == TRAK__FT_INT ? fd->size : fd->elem) <= len) {
      unsigned size = fd->kind == TRAK__FT_INT ? fd->size : fd->elem;
      uint64_t v = load_int(rec + fd->offset, size, fd->is_signed);
      trak_pb_put_varint(b,
                         fd->is_signed ? TRAK_PB_GenericFtraceEvent_Field_int_value
                                       : TRAK_PB_GenericFtraceEvent_Field_uint_value,
                         v);
    }
  } else if (!field_text(fd, rec, len, &s, &n)) {
    trak_pb_put_bytes(b, TRAK_PB_GenericFtraceEvent_Field_str_value, s, n);
  }
  trak_pb_end_nested_short(b, g);
}

/* ---- bundles ---- */

/* Each column's CompactSched field. */
static const uint32_t COLUMN_FIELD[TRAK__COMPACT_NCOLS] = {
    TRAK_PB_FtraceEventBundle_CompactSched_switch_timestamp,
    TRAK_PB_FtraceEventBundle_CompactSched_switch_prev_state,
    TRAK_PB_FtraceEventBundle_CompactSched_switch_next_pid,
    TRAK_PB_FtraceEventBundle_CompactSched_switch_next_prio,
    TRAK_PB_FtraceEventBundle_CompactSched_switch_next_comm_index,
    TRAK_PB_FtraceEventBundle_CompactSched_waking_timestamp,
    TRAK_PB_FtraceEventBundle_CompactSched_waking_pid,
    TRAK_PB_FtraceEventBundle_CompactSched_waking_target_cpu,
    TRAK_PB_FtraceEventBundle_CompactSched_waking_prio,
    TRAK_PB_FtraceEventBundle_CompactSched_waking_comm_index,
    TRAK_PB_FtraceEventBundle_CompactSched_waking_common_flags};

void trak__ftrace_bundler_init(trak__ftrace_bundler *b, const trak__ftrace_table *t, uint32_t cpu,
                               trak__ftrace_packet_fn out, void *user) {
  memset(b, 0, sizeof *b);
  b->table = t;
  b->cpu = cpu;
  b->out = out;
  b->user = user;
  trak_pb_buf_init_heap(&b->events);
  trak_pb_buf_init_heap(&b->packet);
  for (int i = 0; i < TRAK__COMPACT_NCOLS; i++)
    trak_pb_buf_init_heap(&b->col[i]);
}

void trak__ftrace_bundler_free(trak__ftrace_bundler *b) {
  trak_pb_buf_free(&b->events);
  trak_pb_buf_free(&b->packet);
  for (int i = 0; i < TRAK__COMPACT_NCOLS; i++)
    trak_pb_buf_free(&b->col[i]);
}

static size_t open_bytes(const trak__ftrace_bundler *b) {
  size_t n = trak_pb_buf_len(&b->events) + b->ncomms * 17;
  for (int i = 0; i < TRAK__COMPACT_NCOLS; i++)
    n += trak_pb_buf_len(&b->col[i]);
  return n;
}

static void put_column(trak_pb_buf *p, uint32_t field, trak_pb_buf *col) {
  if (trak_pb_buf_len(col)) trak_pb_put_bytes(p, field, col->start, trak_pb_buf_len(col));
  col->p = col->start;
}

void trak__ftrace_bundler_flush(trak__ftrace_bundler *b) {
  if (!b->nevents && !b->nerrors) return;
  trak_pb_buf *p = &b->packet;
  p->p = p->start;
  p->error = 0;
  trak_pb_nested n = trak_pb_begin_nested(p, TRAK_PB_TracePacket_ftrace_events);
  trak_pb_put_varint(p, TRAK_PB_FtraceEventBundle_cpu, b->cpu);
  if (b->lost) trak_pb_put_bool(p, TRAK_PB_FtraceEventBundle_lost_events, 1);
  if (b->clock) trak_pb_put_varint(p, TRAK_PB_FtraceEventBundle_ftrace_clock, (uint64_t)b->clock);
  if (b->prev_end)
    trak_pb_put_varint(p, TRAK_PB_FtraceEventBundle_previous_bundle_end_timestamp, b->prev_end);
  trak_pb_put_raw(p, b->events.start, trak_pb_buf_len(&b->events));
  if (b->ncomms) { /* every compact entry interns a name */
    trak_pb_nested c = trak_pb_begin_nested(p, TRAK_PB_FtraceEventBundle_compact_sched);
    for (uint32_t i = 0; i < b->ncomms; i++)
      trak_pb_put_bytes(p, TRAK_PB_FtraceEventBundle_CompactSched_intern_table, b->comms[i],
                        strnlen(b->comms[i], 16));
    for (int i = 0; i < TRAK__COMPACT_NCOLS; i++)
      put_column(p, COLUMN_FIELD[i], &b->col[i]);
    trak_pb_end_nested(p, c);
  }
  for (uint32_t i = 0; i < b->nerrors; i++) {
    trak_pb_nested e = trak_pb_begin_nested_short(p, TRAK_PB_FtraceEventBundle_error);
    trak_pb_put_varint(p, TRAK_PB_FtraceEventBundle_FtraceError_timestamp, b->err_ts[i]);
    trak_pb_put_varint(p, TRAK_PB_FtraceEventBundle_FtraceError_status, b->err_status[i]);
    trak_pb_end_nested_short(p, e);
  }
  trak_pb_end_nested(p, n);
  if (!p->error) {
    b->bytes_total += trak_pb_buf_len(p);
    b->out(b->user, p->start, trak_pb_buf_len(p));
  }
  if (b->nevents) b->prev_end = b->last_ts;
  b->events.p = b->events.start;
  b->nevents = b->ncomms = b->nerrors = 0;
  b->sw_last = b->wk_last = 0;
  b->lost = 0;
}

/* The index of a task name in the bundle's intern table; UINT32_MAX when it is full. */
static uint32_t intern_comm(trak__ftrace_bundler *b, const char *s, size_t n) {
  char c[16] = {0};
  memcpy(c, s, n < 16 ? n : 16);
  for (uint32_t i = 0; i < b->ncomms; i++)
    if (!memcmp(b->comms[i], c, 16)) return i;
  if (b->ncomms == TRAK__COMPACT_MAX_COMMS) return UINT32_MAX;
  memcpy(b->comms[b->ncomms], c, 16);
  return b->ncomms++;
}

static inline void col_varint(trak_pb_buf *c, uint64_t v) {
  if (trak_pb_buf_ensure(c, TRAK_PB_MAX_VARINT_BYTES)) c->p = trak_pb_write_varint(c->p, v);
}

/* The value of field `name` of `f` in `rec`; 0 when absent. */
static uint64_t named_int(const trak__ftrace_format *f, const char *name, const uint8_t *rec,
                          size_t len) {
  for (uint32_t i = 0; i < f->nfields; i++)
    if (f->fields[i].kind == TRAK__FT_INT && !strcmp(f->fields[i].name, name) &&
        (size_t)f->fields[i].offset + f->fields[i].size <= len)
      return load_int(rec + f->fields[i].offset, f->fields[i].size, f->fields[i].is_signed);
  return 0;
}
static const trak__ftrace_field *named(const trak__ftrace_format *f, const char *name) {
  for (uint32_t i = 0; i < f->nfields; i++)
    if (!strcmp(f->fields[i].name, name)) return &f->fields[i];
  return NULL;
}

/* sched_switch / sched_waking into the compact columns. Returns 0, or -1 when the event
** must be written in full instead (intern table full, a field missing). */
static int put_compact(trak__ftrace_bundler *b, const trak__ftrace_format *f, uint64_t ts,
                       const uint8_t *rec, size_t len) {
  const trak__ftrace_field *cf = named(f, f->compact == 1 ? "next_comm" : "comm");
  const char *s;
  size_t n;
  if (!cf || field_text(cf, rec, len, &s, &n)) return -1;
  uint32_t ci = intern_comm(b, s, n);
  if (ci == UINT32_MAX) return -1;
  if (f->compact == 1) {
    col_varint(&b->col[TRAK__SW_TS], ts - b->sw_last);
    b->sw_last = ts;
    col_varint(&b->col[TRAK__SW_STATE], named_int(f, "prev_state", rec, len));
    col_varint(&b->col[TRAK__SW_PID], named_int(f, "next_pid", rec, len));
    col_varint(&b->col[TRAK__SW_PRIO], named_int(f, "next_prio", rec, len));
    col_varint(&b->col[TRAK__SW_COMM], ci);
  } else {
    col_varint(&b->col[TRAK__WK_TS], ts - b->wk_last);
    b->wk_last = ts;
    col_varint(&b->col[TRAK__WK_PID], named_int(f, "pid", rec, len));
    col_varint(&b->col[TRAK__WK_CPU], named_int(f, "target_cpu", rec, len));
    col_varint(&b->col[TRAK__WK_PRIO], named_int(f, "prio", rec, len));
    col_varint(&b->col[TRAK__WK_COMM], ci);
    col_varint(&b->col[TRAK__WK_FLAGS],
               f->flags_offset && f->flags_offset < len ? rec[f->flags_offset] : 0);
  }
  return 0;
}

static void on_record(void *user, uint64_t ts, const uint8_t *rec, size_t len) {
  trak__ftrace_bundler *b = user;
  uint16_t id;
  memcpy(&id, rec, 2);
  const trak__ftrace_format *f = id < b->table->nids ? b->table->by_id[id] : NULL;
  if (!f) {
    b->unknown_ids++;
    return;
  }
  if (!f->proto_event && b->table->no_generic) return;
  if (open_bytes(b) > TRAK__BUNDLE_MAX) trak__ftrace_bundler_flush(b);
  b->nevents++;
  b->events_total++;
  b->last_ts = ts;
  if (f->compact && b->table->compact_sched && !put_compact(b, f, ts, rec, len)) return;
  trak_pb_buf *e = &b->events;
  trak_pb_nested n = trak_pb_begin_nested_short(e, TRAK_PB_FtraceEventBundle_event);
  trak_pb_put_varint(e, TRAK_PB_FtraceEvent_timestamp, ts);
  if (f->pid_offset && (size_t)f->pid_offset + 4 <= len)
    trak_pb_put_varint(e, TRAK_PB_FtraceEvent_pid, (uint32_t)load_int(rec + f->pid_offset, 4, 0));
  if (f->proto_event) {
    trak_pb_nested m = trak_pb_begin_nested_short(e, f->proto_event);
    for (uint32_t i = 0; i < f->nfields; i++)
      if (f->fields[i].proto_number) put_typed(e, &f->fields[i], rec, len);
    trak_pb_end_nested_short(e, m);
  } else {
    trak_pb_nested m = trak_pb_begin_nested_short(e, TRAK_PB_FtraceEvent_generic);
    trak_pb_put_string(e, TRAK_PB_GenericFtraceEvent_event_name, f->name);
    for (uint32_t i = 0; i < f->nfields; i++)
      put_generic(e, &f->fields[i], rec, len);
    trak_pb_end_nested_short(e, m);
  }
  trak_pb_end_nested_short(e, n);
}

int trak__ftrace_bundler_page(trak__ftrace_bundler *b, const trak__ftrace_page_layout *l,
                              const uint8_t *page, size_t len) {
  trak__ftrace_page_info info;
  /* A loss before this page belongs to a new bundle. */
  if (len >= (size_t)l->commit_offset + 4) {
    uint32_t commit;
    memcpy(&commit, page + l->commit_offset, 4);
    if (commit >> 31) {
      trak__ftrace_bundler_flush(b);
      b->lost = 1;
    }
  }
  int st = trak__ftrace_page_parse(l, page, len, on_record, b, &info);
  if (st != TRAK_PB_FTRACE_STATUS_OK && b->nerrors < 8) {
    b->err_ts[b->nerrors] = info.base_ts;
    b->err_status[b->nerrors++] = (uint8_t)st;
  }
  return st;
}
