/*
** This file holds the decoding thread's reading of FtraceEventBundles (trak__ftrace_predecode):
** each event's timestamp, pid and flags, the fields of plain sched_switch / sched_waking events
** (by a reader specialised for them, the generic protobuf decoder for anything else) and
** compact_sched's counts, handed to the importer's thread beside the packet (ftrace_bundle.c's
** bundle_pre takes them). It reads nothing but the bundle's bytes.
*/
#include <string.h>

#include "processor/import/ftrace/ftrace.h"
#include "processor/import/proto/proto.h"
#include "processor/util/compact_sched.h"

#define BIT(n) (1u << (n))
/* The fields a plain sched_switch / sched_waking may have (bit n: field n) and which of them
** are strings; any other field, or a wire type not its type's, leaves the event to be decoded
** from its bytes on the importer's thread. Each string field has its slot in trak_fpre_ev.s:
** the first (prev_comm, comm) 0, next_comm 1. */
#define SWITCH_FIELDS                                                                              \
  (BIT(TRAK_PB_SchedSwitchFtraceEvent_prev_comm) | BIT(TRAK_PB_SchedSwitchFtraceEvent_prev_pid) |  \
   BIT(TRAK_PB_SchedSwitchFtraceEvent_prev_prio) |                                                 \
   BIT(TRAK_PB_SchedSwitchFtraceEvent_prev_state) |                                                \
   BIT(TRAK_PB_SchedSwitchFtraceEvent_next_comm) | BIT(TRAK_PB_SchedSwitchFtraceEvent_next_pid) |  \
   BIT(TRAK_PB_SchedSwitchFtraceEvent_next_prio))
#define SWITCH_STRINGS                                                                             \
  (BIT(TRAK_PB_SchedSwitchFtraceEvent_prev_comm) | BIT(TRAK_PB_SchedSwitchFtraceEvent_next_comm))
#define WAKING_FIELDS                                                                              \
  (BIT(TRAK_PB_SchedWakingFtraceEvent_comm) | BIT(TRAK_PB_SchedWakingFtraceEvent_pid) |            \
   BIT(TRAK_PB_SchedWakingFtraceEvent_prio) | BIT(TRAK_PB_SchedWakingFtraceEvent_success) |        \
   BIT(TRAK_PB_SchedWakingFtraceEvent_target_cpu))
#define WAKING_STRINGS BIT(TRAK_PB_SchedWakingFtraceEvent_comm)
#define FIRST_STRING TRAK_PB_SchedSwitchFtraceEvent_prev_comm /* s[0]; the other string: s[1] */

/* Every field number fits trak_fpre_ev's v[8] and `has`, and the first strings share a number
** (the fast reader below keeps only fields 1 to 7, its tags of one byte). */
_Static_assert(SWITCH_FIELDS < 256 && WAKING_FIELDS < 256 && !(SWITCH_FIELDS & 1) &&
                   !(WAKING_FIELDS & 1),
               "plain sched fields are 1 to 7");
_Static_assert(TRAK_PB_SchedWakingFtraceEvent_comm == FIRST_STRING, "comm is s[0]");

/* A compact_sched field's entry: its bytes, and the counts of its events when its arrays are
** plain (trak__compact_count, which reads only the message's bytes). */
static void precount_compact(const trak_pb_field *f, trak_fpre_ev *out) {
  out->kind = TRAK_FPRE_COMPACT, out->data = f->data, out->len = (uint32_t)f->len, out->has = 0;
  trak_compact_sched cs;
  trak_compact_count c[2];
  if (trak__compact_sched_open(&cs, f->data, f->len)) return; /* out of memory: not counted */
  if (trak__compact_count(&cs, 0, &c[0]) && trak__compact_count(&cs, 1, &c[1])) {
    out->has = 1;
    for (int k = 0; k < 2; k++) {
      out->v[4 * k] = (int64_t)c[k].n, out->v[4 * k + 1] = c[k].first;
      out->v[4 * k + 2] = c[k].last, out->v[4 * k + 3] = c[k].sorted;
    }
  }
  trak__compact_sched_close(&cs);
}

/* Reads the typed event `ev` into `out` when it is plain; returns 0 when it is not. */
static int plain_read(const uint8_t *limit, const trak_pb_field *ev, unsigned fields,
                      unsigned strings, trak_fpre_ev *out) {
  if (ev->wire_type != TRAK_PB_WIRE_LEN) return 0;
  trak_pb_decoder dec;
  trak_pb_field f;
  trak_pb_decoder_init(&dec, ev->data, ev->len);
  if (limit && dec.end <= limit) dec.limit = limit;
  int rc;
  out->has = 0;
  while ((rc = trak_pb_decoder_next(&dec, &f)) > 0) {
    if (f.number >= 8 || !(fields >> f.number & 1)) return 0;
    int is_str = strings >> f.number & 1;
    if (f.wire_type != (is_str ? TRAK_PB_WIRE_LEN : TRAK_PB_WIRE_VARINT)) return 0;
    if (is_str) {
      int si = f.number == FIRST_STRING ? 0 : 1;
      if (f.len > UINT32_MAX) return 0;
      out->s[si] = f.data, out->s_len[si] = (uint32_t)f.len;
    } else {
      out->v[f.number] = (int64_t)f.value;
    }
    out->has |= (uint16_t)(1u << f.number);
  }
  out->data = ev->data, out->len = (uint32_t)ev->len;
  return rc == 0 && ev->len <= UINT32_MAX;
}

void trak__ftrace_predecode_event(const uint8_t *limit, const uint8_t *data, size_t len,
                                  trak_fpre_ev *out) {
  trak_pb_decoder dec;
  trak_pb_field ev = {0};
  trak_pb_decoder_init(&dec, data, len);
  if (limit && dec.end <= limit) dec.limit = limit;
  out->kind = TRAK_FPRE_EVENT;
  out->data = data, out->len = (uint32_t)len;
  if (len > UINT32_MAX || !trak__ftrace_event_head(&dec, &out->ts, &out->pid, &out->flags, &ev))
    return;
  if (ev.number == TRAK_PB_FtraceEvent_sched_switch &&
      plain_read(limit, &ev, SWITCH_FIELDS, SWITCH_STRINGS, out))
    out->kind = TRAK_FPRE_SWITCH;
  else if (ev.number == TRAK_PB_FtraceEvent_sched_waking &&
           plain_read(limit, &ev, WAKING_FIELDS, WAKING_STRINGS, out))
    out->kind = TRAK_FPRE_WAKING;
  else /* not plain: the event's own bytes again */
    out->data = data, out->len = (uint32_t)len;
}

/* ---- the reader specialised for plain sched events ---------------------------------------- */

/* A varint at *p, advancing it; 16 bytes are readable from *p. Returns 0 when it is longer than
** ten bytes (the decoder's error). */
static inline int fast_varint(const uint8_t **p, uint64_t *v) {
  const uint8_t *q = *p;
  if (TRAK_LIKELY(q[0] < 0x80)) {
    *v = q[0], *p = q + 1;
    return 1;
  }
  if (q[1] < 0x80) { /* pids, lengths over 127 */
    *v = (q[0] & 0x7fu) | (uint64_t)q[1] << 7, *p = q + 2;
    return 1;
  }
  q = trak_pb__read_varint_unchecked(q, v);
  if (!q) return 0;
  *p = q;
  return 1;
}

/* The fields of a plain sched event in [p, end) into `out` as plain_read reads them: one-byte
** tags of the fields in `fields`, strings (`strings`) length-delimited, the others varints.
** Returns 0 on anything else (plain_read then decides). 16 bytes are readable past `end`. */
static inline int fast_fields(const uint8_t *p, const uint8_t *end, unsigned fields,
                              unsigned strings, trak_fpre_ev *out) {
  unsigned has = 0;
  while (p < end) {
    unsigned tag = *p++, n = tag >> 3;
    uint64_t v;
    /* a tag of two bytes or more, or field 0, is not in `fields` (bits 1 to 7) */
    if (!(fields >> n & 1) || tag >= 0x80 || !fast_varint(&p, &v) || p > end) return 0;
    if (strings >> n & 1) {
      if ((tag & 7) != TRAK_PB_WIRE_LEN || v > (uint64_t)(end - p)) return 0;
      int si = n == FIRST_STRING ? 0 : 1;
      out->s[si] = p, out->s_len[si] = (uint32_t)v;
      p += v;
    } else {
      if ((tag & 7) != TRAK_PB_WIRE_VARINT) return 0;
      out->v[n] = (int64_t)v;
    }
    has |= 1u << n;
  }
  out->has = (uint16_t)has;
  return 1;
}

/* FtraceEvent tags the fast reader takes (a tag of up to two bytes is read). */
#define TAG(n, w) ((n) << 3 | (w))
#define TAG_TS TAG(TRAK_PB_FtraceEvent_timestamp, TRAK_PB_WIRE_VARINT)
#define TAG_PID TAG(TRAK_PB_FtraceEvent_pid, TRAK_PB_WIRE_VARINT)
#define TAG_FLAGS TAG(TRAK_PB_FtraceEvent_common_flags, TRAK_PB_WIRE_VARINT)
#define TAG_SWITCH TAG(TRAK_PB_FtraceEvent_sched_switch, TRAK_PB_WIRE_LEN)
#define TAG_WAKING TAG(TRAK_PB_FtraceEvent_sched_waking, TRAK_PB_WIRE_LEN)
_Static_assert(TAG_TS < 16384 && TAG_PID < 16384 && TAG_FLAGS < 16384 && TAG_SWITCH < 16384 &&
                   TAG_WAKING < 16384,
               "FtraceEvent's head and sched tags take up to two bytes");

int trak__ftrace_predecode_fast(const uint8_t *limit, const uint8_t *data, size_t len,
                                trak_fpre_ev *out) {
  const uint8_t *p = data, *end = data + len, *ev = NULL;
  /* every read below starts before `end` and reads at most 16 bytes */
  if (!limit || limit < end || limit - end < 16 || len > UINT32_MAX) return 0;
  int64_t ts = 0, flags = TRAK_FTRACE_NO_FLAGS;
  uint32_t pid = 0;
  uint64_t ev_len = 0;
  unsigned ev_tag = 0;
  while (p < end) {
    unsigned tag = *p++;
    if (tag >= 0x80) {
      if (p[0] >= 0x80) return 0;
      tag = (tag & 0x7f) | (unsigned)p[0] << 7, p++;
    }
    uint64_t v;
    if (!fast_varint(&p, &v) || p > end) return 0;
    switch (tag) {
    case TAG_TS:
      ts = (int64_t)v;
      break;
    case TAG_PID:
      pid = (uint32_t)v;
      break;
    case TAG_FLAGS:
      flags = (int64_t)(uint32_t)v;
      break;
    case TAG_SWITCH:
    case TAG_WAKING:
      if (ev || v > (uint64_t)(end - p)) return 0; /* a second event: the last is taken */
      ev = p, ev_len = v, ev_tag = tag;
      p += v;
      break;
    default:
      return 0;
    }
  }
  if (!ev) return 0;
  if (ev_tag == TAG_SWITCH) {
    if (!fast_fields(ev, ev + ev_len, SWITCH_FIELDS, SWITCH_STRINGS, out)) return 0;
    out->kind = TRAK_FPRE_SWITCH;
  } else {
    if (!fast_fields(ev, ev + ev_len, WAKING_FIELDS, WAKING_STRINGS, out)) return 0;
    out->kind = TRAK_FPRE_WAKING;
  }
  out->ts = ts, out->pid = pid, out->flags = flags;
  out->data = ev, out->len = (uint32_t)ev_len;
  return 1;
}

int trak__fpre_ev_same(const trak_fpre_ev *a, const trak_fpre_ev *b) {
  if (a->kind != b->kind || a->data != b->data || a->len != b->len) return 0;
  if (a->kind != TRAK_FPRE_SWITCH && a->kind != TRAK_FPRE_WAKING) return 1;
  if (a->has != b->has || a->ts != b->ts || a->pid != b->pid || a->flags != b->flags) return 0;
  unsigned strings = a->kind == TRAK_FPRE_SWITCH ? SWITCH_STRINGS : WAKING_STRINGS;
  for (unsigned n = 0; n < 8; n++) {
    if (!(a->has >> n & 1)) continue;
    int si = n == FIRST_STRING ? 0 : 1;
    if (strings >> n & 1 ? a->s[si] != b->s[si] || a->s_len[si] != b->s_len[si]
                         : a->v[n] != b->v[n])
      return 0;
  }
  return 1;
}

/* trak__ftrace_predecode of the bundle `b`; out of line, so that the far more common packet
** without a bundle costs a call and a test, not this function's frame. */
__attribute__((noinline)) static uint32_t bundle_predecode(const uint8_t *limit, trak_span b,
                                                           trak_fpre_set *set) {
  trak_pb_decoder dec;
  trak_pb_field f;
  uint32_t cpu = 0;
  trak_fhead head = {0};
  size_t first = set->evs.n;
  trak_pb_decoder_init(&dec, b.data, b.len);
  if (limit && dec.end <= limit) dec.limit = limit;
  int rc;
  /* One pass: the cpu (its last value, as the importer's thread takes it: it may follow the
  ** events) and the events, each written where it stays. */
  while ((rc = trak_pb_decoder_next(&dec, &f)) > 0) {
    if (set->evs.n == set->evs.cap)
      trak__grow((void **)&set->evs.v, &set->evs.cap, set->evs.n + 1, sizeof *set->evs.v);
    trak_fpre_ev *e = &set->evs.v[set->evs.n];
    int is_len = f.wire_type == TRAK_PB_WIRE_LEN;
    if (!is_len || f.number != TRAK_PB_FtraceEventBundle_event) trak__ftrace_head_field(&head, &f);
    if (f.number == TRAK_PB_FtraceEventBundle_cpu) cpu = (uint32_t)f.value;
    if (f.number == TRAK_PB_FtraceEventBundle_event && is_len) {
      if (!trak__ftrace_predecode_fast(limit, f.data, f.len, e))
        trak__ftrace_predecode_event(limit, f.data, f.len, e);
      if (e->kind == TRAK_FPRE_WAKING) /* the key of its arg set on the importer's thread */
        e->v[0] =
            (int64_t)trak__ftrace_args_hash(TRAK_PB_FtraceEvent_sched_waking, e->data, e->len);
    } else if (f.number == TRAK_PB_FtraceEventBundle_compact_sched && is_len &&
               f.len <= UINT32_MAX) {
      precount_compact(&f, e);
    } else if (f.number == TRAK_PB_FtraceEventBundle_lost_events && f.value) {
      e->kind = TRAK_FPRE_LOST;
    } else if (f.number == TRAK_PB_FtraceEventBundle_compact_sched && is_len) {
      break; /* a message past 4 GiB: the importer's thread reads the bundle */
    } else if (f.number == TRAK_PB_FtraceEventBundle_generic_event_descriptors && is_len) {
      break; /* descriptors change how events read: the importer's thread reads the bundle */
    } else {
      continue;
    }
    set->evs.n++;
  }
  if (rc != 0) { /* malformed, cut short or left to the importer's thread, which reads it */
    set->evs.n = first;
    return 0;
  }
  trak_fpre p = {b.data, b.len, cpu, head, first, set->evs.n - first, NULL};
  trak_vec_push(set->bundles, p);
  return (uint32_t)set->bundles.n;
}

uint32_t trak__ftrace_bundle_predecode(const uint8_t *limit, const trak_packet_fields *pf,
                                       trak_fpre_set *set) {
  trak_span b;
  if (trak__packet_meta(pf, &b) != TRAK_PB_TracePacket_ftrace_events) return 0;
  return bundle_predecode(limit, b, set);
}

void trak__ftrace_predecode_done(trak_fpre_set *set) {
  for (size_t i = 0; i < set->bundles.n; i++)
    set->bundles.v[i].evs = set->evs.n ? set->evs.v + set->bundles.v[i].first : NULL;
}
