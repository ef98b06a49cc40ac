/*
** A small trace reader for the SDK tests (header-only: each test includes it once). It decodes
** a serialized Trace with the pb decoder the way an importer would: per-sequence interning
** tables and incremental clocks, reset by SEQ_INCREMENTAL_STATE_CLEARED, and track descriptors.
** A reference to an iid the sequence does not define, or an incremental timestamp on a
** sequence whose state is not valid, is counted in `errors`: the SDK must never produce one.
*/
#ifndef TRAK_TESTS_SDK_DECODE_H
#define TRAK_TESTS_SDK_DECODE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trak/pb.h"
#include "trak/protos.h"
#include "trak/sdk.h"

/* A session's trace read out in pieces: each read appends here (NUL-padded by one byte). */
typedef struct dec_bytes {
  uint8_t *p;
  size_t n;
} dec_bytes;

/* Appends the session's unread trace to `all`. Returns trak_session_read()'s result. */
static __attribute__((unused)) int dec_read_session(trak_session *s, dec_bytes *all) {
  uint8_t *data;
  size_t len;
  int rc = trak_session_read(s, &data, &len, NULL);
  if (rc) return rc;
  all->p = realloc(all->p, all->n + len + 1);
  if (len) memcpy(all->p + all->n, data, len);
  all->n += len;
  free(data);
  return 0;
}

#define DEC_MAX_ARGS 8
#define DEC_MAX_FLOWS 4
#define DEC_MAX_TRACKS 256
#define DEC_MAX_SEQS 1024
#define DEC_MAX_IIDS 256

typedef struct dec_arg {
  char name[64];
  uint32_t kind; /* DebugAnnotation value field number */
  uint64_t u;    /* bool, uint, int (two's complement), pointer */
  double d;
  char s[64];
} dec_arg;

typedef struct dec_event {
  uint32_t seq;
  uint64_t ts;
  int explicit_clock; /* the packet named BOOTTIME itself */
  int type;
  char name[96];
  char cats[96];  /* comma-joined */
  uint64_t track; /* resolved: explicit or sequence default */
  int nargs;
  dec_arg args[DEC_MAX_ARGS];
  int nflows, nterm;
  uint64_t flows[DEC_MAX_FLOWS], term[DEC_MAX_FLOWS];
  int has_counter, counter_is_double;
  int64_t counter_i;
  double counter_d;
  uint32_t extra_field; /* first field number >= 1000 seen in the TrackEvent */
  uint64_t extra_value; /* its varint value */
} dec_event;

typedef struct dec_track {
  uint64_t uuid, parent;
  char name[64];
  int is_counter, unit, child_ordering, has_rank, rank;
  int is_thread, is_process;
  int64_t tid, pid;
  char thread_name[64], process_name[64];
  int count; /* times described */
} dec_track;

typedef struct dec_seq {
  uint32_t id;
  int valid;      /* incremental state seen */
  uint64_t clock; /* incremental clock 64 */
  uint64_t default_track;
  int default_clock;
  char *names[3][DEC_MAX_IIDS]; /* categories, event names, annotation names by iid */
  int packets;
} dec_seq;

typedef struct dec_trace {
  dec_event *ev;
  size_t nev, cap;
  dec_track tracks[DEC_MAX_TRACKS];
  int ntracks;
  dec_seq *seqs;
  int nseqs;
  int packets, clears, firsts, dropped_flags, snapshots;
  int trace_stats;            /* trace_stats packets (the service's: not counted in packets) */
  uint64_t stats_packet_loss; /* their buffer_stats[0].trace_writer_packet_loss */
  int errors;
  char error_text[256];
  int user_interned; /* InternedData entries in fields other than 1..3 */
} dec_trace;

static __attribute__((unused)) void dec_error(dec_trace *t, const char *what) {
  if (!t->errors++) snprintf(t->error_text, sizeof t->error_text, "%s", what);
}

static __attribute__((unused)) dec_seq *dec_seq_get(dec_trace *t, uint32_t id) {
  for (int i = 0; i < t->nseqs; i++)
    if (t->seqs[i].id == id) return &t->seqs[i];
  if (t->nseqs == DEC_MAX_SEQS) return NULL;
  dec_seq *s = &t->seqs[t->nseqs++];
  memset(s, 0, sizeof *s);
  s->id = id;
  return s;
}

static __attribute__((unused)) void dec_seq_reset(dec_seq *s) {
  for (int k = 0; k < 3; k++)
    for (int i = 0; i < DEC_MAX_IIDS; i++) {
      free(s->names[k][i]);
      s->names[k][i] = NULL;
    }
  s->default_track = 0;
  s->default_clock = 0;
}

static __attribute__((unused)) void dec_copy(char *dst, size_t cap, const uint8_t *p, size_t n) {
  if (n >= cap) n = cap - 1;
  memcpy(dst, p, n);
  dst[n] = 0;
}

static __attribute__((unused)) dec_track *dec_track_get(dec_trace *t, uint64_t uuid) {
  for (int i = 0; i < t->ntracks; i++)
    if (t->tracks[i].uuid == uuid) return &t->tracks[i];
  if (t->ntracks == DEC_MAX_TRACKS) return NULL;
  dec_track *k = &t->tracks[t->ntracks++];
  memset(k, 0, sizeof *k);
  k->uuid = uuid;
  return k;
}

static __attribute__((unused)) void dec_track_descriptor(dec_trace *t, const uint8_t *p, size_t n) {
  trak_pb_decoder d, sub;
  trak_pb_field f, g;
  uint64_t uuid = 0;
  trak_pb_decoder_init(&d, p, n);
  while (trak_pb_decoder_next(&d, &f) == 1)
    if (f.number == TRAK_PB_TrackDescriptor_uuid) uuid = f.value;
  dec_track *k = dec_track_get(t, uuid);
  if (!k) return;
  k->count++;
  trak_pb_decoder_init(&d, p, n);
  while (trak_pb_decoder_next(&d, &f) == 1) {
    switch (f.number) {
    case TRAK_PB_TrackDescriptor_parent_uuid:
      k->parent = f.value;
      break;
    case TRAK_PB_TrackDescriptor_name:
      dec_copy(k->name, sizeof k->name, f.data, f.len);
      break;
    case TRAK_PB_TrackDescriptor_child_ordering:
      k->child_ordering = (int)f.value;
      break;
    case TRAK_PB_TrackDescriptor_sibling_order_rank:
      k->has_rank = 1;
      k->rank = (int)f.value;
      break;
    case TRAK_PB_TrackDescriptor_counter:
      k->is_counter = 1;
      trak_pb_decoder_init_nested(&sub, &d, &f);
      while (trak_pb_decoder_next(&sub, &g) == 1)
        if (g.number == TRAK_PB_CounterDescriptor_unit) k->unit = (int)g.value;
      break;
    case TRAK_PB_TrackDescriptor_thread:
      k->is_thread = 1;
      trak_pb_decoder_init_nested(&sub, &d, &f);
      while (trak_pb_decoder_next(&sub, &g) == 1) {
        if (g.number == TRAK_PB_ThreadDescriptor_tid) k->tid = (int64_t)g.value;
        if (g.number == TRAK_PB_ThreadDescriptor_pid) k->pid = (int64_t)g.value;
        if (g.number == TRAK_PB_ThreadDescriptor_thread_name)
          dec_copy(k->thread_name, sizeof k->thread_name, g.data, g.len);
      }
      break;
    case TRAK_PB_TrackDescriptor_process:
      k->is_process = 1;
      trak_pb_decoder_init_nested(&sub, &d, &f);
      while (trak_pb_decoder_next(&sub, &g) == 1) {
        if (g.number == TRAK_PB_ProcessDescriptor_pid) k->pid = (int64_t)g.value;
        if (g.number == TRAK_PB_ProcessDescriptor_process_name)
          dec_copy(k->process_name, sizeof k->process_name, g.data, g.len);
      }
      break;
    default:
      break;
    }
  }
}

static __attribute__((unused)) void dec_interned(dec_trace *t, dec_seq *s, const uint8_t *p,
                                                 size_t n) {
  trak_pb_decoder d, e;
  trak_pb_field f, g;
  trak_pb_decoder_init(&d, p, n);
  while (trak_pb_decoder_next(&d, &f) == 1) {
    int k = f.number == TRAK_PB_InternedData_event_categories         ? 0
            : f.number == TRAK_PB_InternedData_event_names            ? 1
            : f.number == TRAK_PB_InternedData_debug_annotation_names ? 2
                                                                      : -1;
    if (k < 0) {
      t->user_interned++;
      continue;
    }
    uint64_t iid = 0;
    const uint8_t *name = NULL;
    size_t len = 0;
    trak_pb_decoder_init_nested(&e, &d, &f);
    while (trak_pb_decoder_next(&e, &g) == 1) {
      if (g.number == 1) iid = g.value;
      if (g.number == 2) name = g.data, len = g.len;
    }
    if (!iid || iid >= DEC_MAX_IIDS || !name) {
      dec_error(t, "bad interned entry");
      continue;
    }
    free(s->names[k][iid]);
    s->names[k][iid] = strndup((const char *)name, len);
  }
}

static __attribute__((unused)) const char *dec_lookup(dec_trace *t, dec_seq *s, int k,
                                                      uint64_t iid) {
  if (iid < DEC_MAX_IIDS && s->names[k][iid]) return s->names[k][iid];
  dec_error(t, k == 0 ? "unknown category iid" : k == 1 ? "unknown name iid" : "unknown arg iid");
  return "?";
}

static __attribute__((unused)) void dec_cat_append(char *cats, size_t cap, const char *c,
                                                   size_t n) {
  size_t used = strlen(cats);
  if (used && used + 1 < cap) cats[used++] = ',';
  if (used + n >= cap) n = cap - used - 1;
  memcpy(cats + used, c, n);
  cats[used + n] = 0;
}

static __attribute__((unused)) void dec_annotation(dec_trace *t, dec_seq *s, dec_event *ev,
                                                   trak_pb_decoder *parent, trak_pb_field *f) {
  if (ev->nargs == DEC_MAX_ARGS) return;
  dec_arg *a = &ev->args[ev->nargs++];
  trak_pb_decoder d;
  trak_pb_field g;
  trak_pb_decoder_init_nested(&d, parent, f);
  while (trak_pb_decoder_next(&d, &g) == 1) {
    if (g.number == TRAK_PB_DebugAnnotation_name_iid)
      snprintf(a->name, sizeof a->name, "%s", dec_lookup(t, s, 2, g.value));
    else if (g.number == TRAK_PB_DebugAnnotation_name)
      dec_copy(a->name, sizeof a->name, g.data, g.len);
    else {
      a->kind = g.number;
      a->u = g.value;
      if (g.number == TRAK_PB_DebugAnnotation_double_value) a->d = trak_pb_as_double(&g);
      if (g.wire_type == TRAK_PB_WIRE_LEN) dec_copy(a->s, sizeof a->s, g.data, g.len);
    }
  }
}

static __attribute__((unused)) void dec_track_event(dec_trace *t, dec_seq *s, dec_event *ev,
                                                    trak_pb_decoder *parent, trak_pb_field *tf) {
  trak_pb_decoder d;
  trak_pb_field f;
  trak_pb_decoder_init_nested(&d, parent, tf);
  ev->track = s->default_track;
  while (trak_pb_decoder_next(&d, &f) == 1) {
    switch (f.number) {
    case TRAK_PB_TrackEvent_type:
      ev->type = (int)f.value;
      break;
    case TRAK_PB_TrackEvent_name_iid:
      snprintf(ev->name, sizeof ev->name, "%s", dec_lookup(t, s, 1, f.value));
      break;
    case TRAK_PB_TrackEvent_name:
      dec_copy(ev->name, sizeof ev->name, f.data, f.len);
      break;
    case TRAK_PB_TrackEvent_category_iids: {
      const char *c = dec_lookup(t, s, 0, f.value);
      dec_cat_append(ev->cats, sizeof ev->cats, c, strlen(c));
      break;
    }
    case TRAK_PB_TrackEvent_categories:
      dec_cat_append(ev->cats, sizeof ev->cats, (const char *)f.data, f.len);
      break;
    case TRAK_PB_TrackEvent_track_uuid:
      ev->track = f.value;
      break;
    case TRAK_PB_TrackEvent_debug_annotations:
      dec_annotation(t, s, ev, &d, &f);
      break;
    case TRAK_PB_TrackEvent_flow_ids:
      if (ev->nflows < DEC_MAX_FLOWS) ev->flows[ev->nflows++] = f.value;
      break;
    case TRAK_PB_TrackEvent_terminating_flow_ids:
      if (ev->nterm < DEC_MAX_FLOWS) ev->term[ev->nterm++] = f.value;
      break;
    case TRAK_PB_TrackEvent_counter_value:
      ev->has_counter = 1;
      ev->counter_i = (int64_t)f.value;
      break;
    case TRAK_PB_TrackEvent_double_counter_value:
      ev->has_counter = ev->counter_is_double = 1;
      ev->counter_d = trak_pb_as_double(&f);
      break;
    default:
      if (f.number >= 1000 && !ev->extra_field) {
        ev->extra_field = f.number;
        ev->extra_value = f.value;
      }
    }
  }
}

/* Reads a trace_stats packet: the SDK writes one, on the service sequence (1), as the last
** packet of a stopped session's trace. */
static __attribute__((unused)) void dec_trace_stats(dec_trace *t, uint32_t seq_id, const uint8_t *p,
                                                    size_t n) {
  if (seq_id != 1) dec_error(t, "trace_stats off the service sequence");
  if (t->trace_stats++) dec_error(t, "a second trace_stats packet");
  trak_pb_decoder d, b;
  trak_pb_field f, g;
  trak_pb_decoder_init(&d, p, n);
  while (trak_pb_decoder_next(&d, &f) == 1) {
    if (f.number != TRAK_PB_TraceStats_buffer_stats) continue;
    trak_pb_decoder_init_nested(&b, &d, &f);
    while (trak_pb_decoder_next(&b, &g) == 1)
      if (g.number == TRAK_PB_TraceStats_BufferStats_trace_writer_packet_loss)
        t->stats_packet_loss = g.value;
  }
}

/* Decodes one packet. */
static __attribute__((unused)) void dec_packet(dec_trace *t, const uint8_t *p, size_t n) {
  trak_pb_decoder d, sub;
  trak_pb_field f, g;
  uint32_t seq_id = 0, flags = 0, clock_id = 0;
  uint64_t ts = 0;
  int has_ts = 0;
  const uint8_t *stats = NULL;
  size_t stats_len = 0;
  trak_pb_decoder_init(&d, p, n);
  while (trak_pb_decoder_next(&d, &f) == 1) {
    if (f.number == TRAK_PB_TracePacket_trace_stats) stats = f.data, stats_len = f.len;
    if (f.number == TRAK_PB_TracePacket_trusted_packet_sequence_id) seq_id = (uint32_t)f.value;
    if (f.number == TRAK_PB_TracePacket_sequence_flags) flags = (uint32_t)f.value;
    if (f.number == TRAK_PB_TracePacket_timestamp) ts = f.value, has_ts = 1;
    if (f.number == TRAK_PB_TracePacket_timestamp_clock_id) clock_id = (uint32_t)f.value;
    if (f.number == TRAK_PB_TracePacket_first_packet_on_sequence && f.value) t->firsts++;
    if (f.number == TRAK_PB_TracePacket_previous_packet_dropped && f.value) t->dropped_flags++;
  }
  if (d.error) {
    dec_error(t, "malformed packet");
    return;
  }
  if (stats) {
    dec_trace_stats(t, seq_id, stats, stats_len);
    return;
  }
  if (t->trace_stats) dec_error(t, "a packet after trace_stats");
  if (seq_id == 1) dec_error(t, "a writer packet on the service sequence");
  t->packets++;
  dec_seq *s = dec_seq_get(t, seq_id);
  if (!s) return;
  s->packets++;
  if (flags & TRAK_PB_TracePacket_SEQ_INCREMENTAL_STATE_CLEARED) {
    t->clears++;
    dec_seq_reset(s);
    s->valid = 1;
  }
  /* Defaults and clock snapshots first: they apply to this packet too. */
  trak_pb_decoder_init(&d, p, n);
  while (trak_pb_decoder_next(&d, &f) == 1) {
    if (f.number == TRAK_PB_TracePacket_trace_packet_defaults) {
      trak_pb_decoder_init_nested(&sub, &d, &f);
      while (trak_pb_decoder_next(&sub, &g) == 1) {
        if (g.number == TRAK_PB_TracePacketDefaults_timestamp_clock_id)
          s->default_clock = (int)g.value;
        if (g.number == TRAK_PB_TracePacketDefaults_track_event_defaults) {
          trak_pb_decoder te;
          trak_pb_field h;
          trak_pb_decoder_init_nested(&te, &sub, &g);
          while (trak_pb_decoder_next(&te, &h) == 1)
            if (h.number == TRAK_PB_TrackEventDefaults_track_uuid) s->default_track = h.value;
        }
      }
    } else if (f.number == TRAK_PB_TracePacket_clock_snapshot) {
      t->snapshots++;
      trak_pb_decoder_init_nested(&sub, &d, &f);
      while (trak_pb_decoder_next(&sub, &g) == 1) {
        if (g.number != TRAK_PB_ClockSnapshot_clocks) continue;
        trak_pb_decoder c;
        trak_pb_field h;
        uint32_t id = 0;
        uint64_t v = 0;
        trak_pb_decoder_init_nested(&c, &sub, &g);
        while (trak_pb_decoder_next(&c, &h) == 1) {
          if (h.number == TRAK_PB_ClockSnapshot_Clock_clock_id) id = (uint32_t)h.value;
          if (h.number == TRAK_PB_ClockSnapshot_Clock_timestamp) v = h.value;
        }
        if (id == 64) s->clock = v;
      }
    } else if (f.number == TRAK_PB_TracePacket_interned_data) {
      if (!s->valid) dec_error(t, "interned data on an invalid sequence");
      dec_interned(t, s, f.data, f.len);
    } else if (f.number == TRAK_PB_TracePacket_track_descriptor) {
      dec_track_descriptor(t, f.data, f.len);
    }
  }
  uint32_t clock = clock_id ? clock_id : (uint32_t)s->default_clock;
  uint64_t when = ts;
  if (has_ts && clock == 64) {
    if (!s->valid) dec_error(t, "incremental timestamp on an invalid sequence");
    if (!(flags & TRAK_PB_TracePacket_SEQ_INCREMENTAL_STATE_CLEARED)) s->clock += ts;
    when = s->clock;
  }
  trak_pb_decoder_init(&d, p, n);
  while (trak_pb_decoder_next(&d, &f) == 1) {
    if (f.number != TRAK_PB_TracePacket_track_event) continue;
    if (t->nev == t->cap) {
      t->cap = t->cap ? t->cap * 2 : 1024;
      t->ev = (dec_event *)realloc(t->ev, t->cap * sizeof *t->ev);
    }
    dec_event *ev = &t->ev[t->nev++];
    memset(ev, 0, sizeof *ev);
    ev->seq = seq_id;
    ev->ts = when;
    ev->explicit_clock = clock_id == TRAK_PB_BUILTIN_CLOCK_BOOTTIME;
    dec_track_event(t, s, ev, &d, &f);
  }
}

/* Decodes a whole trace into `t` (zeroed by the caller or by dec_init). Returns 0 or -1 when
** the Trace framing itself is malformed. */
static __attribute__((unused)) int dec_trace_decode(dec_trace *t, const uint8_t *data, size_t len) {
  if (!t->seqs) t->seqs = (dec_seq *)calloc(DEC_MAX_SEQS, sizeof *t->seqs);
  trak_pb_decoder d;
  trak_pb_field f;
  trak_pb_decoder_init(&d, data, len);
  int rc;
  while ((rc = trak_pb_decoder_next(&d, &f)) == 1)
    if (f.number == TRAK_PB_Trace_packet && f.wire_type == TRAK_PB_WIRE_LEN)
      dec_packet(t, f.data, f.len);
  return rc < 0 ? -1 : 0;
}

/* Drops the trace_stats packet that ends a stopped session's trace from [data, data + *len).
** Returns 1, or 0 (nothing dropped) when the last packet is not trace_stats on sequence 1. */
static __attribute__((unused)) int dec_cut_trace_stats(const uint8_t *data, size_t *len) {
  trak_pb_decoder d, p;
  trak_pb_field f, g;
  size_t last = 0, at = 0;
  int is_stats = 0;
  trak_pb_decoder_init(&d, data, *len);
  while (trak_pb_decoder_next(&d, &f) == 1) {
    last = at;
    at = (size_t)(d.p - data);
    int stats = 0;
    uint64_t seq = 0;
    trak_pb_decoder_init_nested(&p, &d, &f);
    while (trak_pb_decoder_next(&p, &g) == 1) {
      stats |= g.number == TRAK_PB_TracePacket_trace_stats;
      if (g.number == TRAK_PB_TracePacket_trusted_packet_sequence_id) seq = g.value;
    }
    is_stats = stats && seq == 1;
  }
  if (!is_stats || at != *len) return 0;
  *len = last;
  return 1;
}

static __attribute__((unused)) void dec_trace_free(dec_trace *t) {
  for (int i = 0; i < t->nseqs; i++)
    dec_seq_reset(&t->seqs[i]);
  free(t->seqs);
  free(t->ev);
  memset(t, 0, sizeof *t);
}

/* Counts events with this type and name (NULL: any name). */
static __attribute__((unused)) size_t dec_count(const dec_trace *t, int type, const char *name) {
  size_t n = 0;
  for (size_t i = 0; i < t->nev; i++)
    if (t->ev[i].type == type && (!name || strcmp(t->ev[i].name, name) == 0)) n++;
  return n;
}

static __attribute__((unused)) const dec_event *dec_find(const dec_trace *t, int type,
                                                         const char *name) {
  for (size_t i = 0; i < t->nev; i++)
    if (t->ev[i].type == type && (!name || strcmp(t->ev[i].name, name) == 0)) return &t->ev[i];
  return NULL;
}

static __attribute__((unused)) const dec_track *dec_track_find(const dec_trace *t, uint64_t uuid) {
  for (int i = 0; i < t->ntracks; i++)
    if (t->tracks[i].uuid == uuid) return &t->tracks[i];
  return NULL;
}

#endif /* TRAK_TESTS_SDK_DECODE_H */
