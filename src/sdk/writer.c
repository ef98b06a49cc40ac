/*
** The per-thread writer: one packet sequence of one thread into one session. It binds to a
** session slot generation, restarts incremental state (first packet, after any loss, when the
** interning table is full, and periodically), frames packets into its current chunk and swaps
** chunks when full, and keeps the interning table (open addressing keyed by string address).
**
** Loss rule: whenever a packet cannot be written the writer marks itself dropped and its next
** packet is a restart (SEQ_INCREMENTAL_STATE_CLEARED + previous_packet_dropped, fresh interning
** table, new clock anchor and descriptors), so nothing written later refers to state an
** importer might not have.
*/
#include <stdlib.h>
#include <string.h>

#include "sdk/internal.h"

#define TAB_INITIAL 256
#define TAB_MAX 65536 /* beyond this the table is cleared with the incremental state */

static _Atomic uint32_t next_seq_id = TRAK__SERVICE_SEQ_ID + 1; /* 1: the service's */

static void intern_reset(trak__writer *w) {
  if (++w->epoch == 0) { /* wrapped: stale entries could look live again */
    if (w->tab) memset(w->tab, 0, w->tab_cap * sizeof *w->tab);
    w->epoch = 1;
  }
  w->tab_count = 0;
  memset(w->fast, 0, sizeof w->fast);
  memset(w->next_iid, 0, sizeof w->next_iid);
  w->tracks_count = 0;
}

/* An intercepted writer's private chunk: as large as the session's chunks (so a packet that
** fits a buffer fits here too), at least trak__icpt_chunk_size(). */
static uint32_t icpt_chunk_size(int slot) {
  uint32_t size = trak__slots[slot].session->chunk_size;
  return size > trak__icpt_chunk_size() ? size : trak__icpt_chunk_size();
}

/* Binds `w` to the instance of its data source in `slot`. An intercepted writer collects
** its packets in a private chunk that trak__icpt_deliver() empties. Returns 0 or -1 (out of
** memory: the writer stays unbound). */
static int bind(trak__writer *w, uint32_t gen, int slot) {
  trak__writer_forget_state(w);
  w->gen = 0;
  w->icpt = trak__ds_icpt(w->ds, slot);
  if (w->icpt) {
    if (!(w->private_chunk = malloc(icpt_chunk_size(slot)))) {
      w->icpt = NULL;
      return -1;
    }
    gen |= TRAK__GEN_ICPT;
  }
  w->gen = gen;
  w->session = trak__slots[slot].session;
  w->seq_id = atomic_fetch_add(&next_seq_id, 1);
  w->chunk = NULL;
  w->base = w->p = w->end = NULL;
  w->packets = 0;
  w->next_chunk_index = 0;
  w->dropped = 0;
  w->started = 0;
  w->need_clear = 1;
  intern_reset(w);
  if (w->private_chunk) {
    w->chunk = (trak__chunk *)w->private_chunk;
    w->chunk->writer_id = w->seq_id;
    w->base = w->p = w->private_chunk + TRAK__CHUNK_HEADER;
    w->end = w->private_chunk + icpt_chunk_size(slot);
  }
  return 0;
}

/* Notes that a packet was lost: the next packet restarts the sequence. Callers count lost
** events in the session stats; restart packets lost with them are not counted. */
static void lose(trak__writer *w) {
  w->dropped = 1;
  w->need_clear = 1;
  w->next_clear_ts = 0;
}

uint8_t *trak__writer_reserve_slow(trak__thread *t, trak__writer *w, size_t need) {
  if (w->icpt) { /* hand over what the private chunk holds and start it again */
    if (need > (size_t)(w->end - w->base)) {
      lose(w);
      return NULL;
    }
    trak__icpt_deliver(w);
    return w->p;
  }
  trak_session *s = w->session;
  if (need > s->chunk_size - TRAK__CHUNK_HEADER ||
      atomic_load_explicit(&s->full, memory_order_relaxed) ||
      trak__session_acquire_chunk(s, w) != 0) {
    lose(w);
    return NULL;
  }
  /* Once a ring buffer may wrap (half of it was handed out), any older chunk may be lost:
  ** restart at the next event so each chunk decodes without its predecessors (at most the
  ** packet being written now needs them). */
  if (w->started && atomic_load_explicit(&s->chunk_restarts, memory_order_relaxed)) {
    w->need_clear = 1;
    w->next_clear_ts = 0;
  }
  return w->p;
}

int trak__writer_put_packet(trak__thread *t, trak__writer *w, const uint8_t *pkt, size_t len) {
  uint8_t *p = trak__writer_reserve(t, w, len);
  if (!p) return -1;
  memcpy(p, pkt, len);
  trak__writer_commit(w, p + len);
  return 0;
}

/* Encodes the restart packet and the process and thread descriptors into t->scratch. */
static void encode_clear(trak__thread *t, trak__writer *w, uint64_t ts) {
  trak_pb_buf *b = &t->scratch;
  b->p = b->start;
  b->error = 0;
  trak_pb_nested pkt = trak_pb_begin_nested_short(b, TRAK_PB_Trace_packet);
  uint64_t boot = trak__boottime_at(ts);
  trak_pb_put_varint(b, TRAK_PB_TracePacket_timestamp, boot);
  trak_pb_put_varint(b, TRAK_PB_TracePacket_timestamp_clock_id, TRAK_PB_BUILTIN_CLOCK_BOOTTIME);
  trak_pb_put_varint(b, TRAK_PB_TracePacket_sequence_flags,
                     TRAK_PB_TracePacket_SEQ_INCREMENTAL_STATE_CLEARED);
  if (!w->started) trak_pb_put_bool(b, TRAK_PB_TracePacket_first_packet_on_sequence, 1);
  if (w->dropped) trak_pb_put_varint(b, TRAK_PB_TracePacket_previous_packet_dropped, 1);
  trak_pb_nested d = trak_pb_begin_nested_short(b, TRAK_PB_TracePacket_trace_packet_defaults);
  trak_pb_put_varint(b, TRAK_PB_TracePacketDefaults_timestamp_clock_id, TRAK__SEQ_CLOCK_ID);
  trak_pb_nested te =
      trak_pb_begin_nested_short(b, TRAK_PB_TracePacketDefaults_track_event_defaults);
  trak_pb_put_varint(b, TRAK_PB_TrackEventDefaults_track_uuid, t->uuid);
  trak_pb_end_nested_short(b, te);
  trak_pb_end_nested_short(b, d);
  trak_pb_nested cs = trak_pb_begin_nested_short(b, TRAK_PB_TracePacket_clock_snapshot);
  trak_pb_nested c = trak_pb_begin_nested_short(b, TRAK_PB_ClockSnapshot_clocks);
  trak_pb_put_varint(b, TRAK_PB_ClockSnapshot_Clock_clock_id, TRAK_PB_BUILTIN_CLOCK_BOOTTIME);
  trak_pb_put_varint(b, TRAK_PB_ClockSnapshot_Clock_timestamp, boot);
  trak_pb_end_nested_short(b, c);
  c = trak_pb_begin_nested_short(b, TRAK_PB_ClockSnapshot_clocks);
  trak_pb_put_varint(b, TRAK_PB_ClockSnapshot_Clock_clock_id, TRAK__SEQ_CLOCK_ID);
  trak_pb_put_varint(b, TRAK_PB_ClockSnapshot_Clock_timestamp, ts);
  trak_pb_put_bool(b, TRAK_PB_ClockSnapshot_Clock_is_incremental, 1);
  trak_pb_end_nested_short(b, c);
  trak_pb_put_varint(b, TRAK_PB_ClockSnapshot_primary_trace_clock, TRAK_PB_BUILTIN_CLOCK_BOOTTIME);
  trak_pb_end_nested_short(b, cs);
  trak_pb_end_nested_short(b, pkt);
  pkt = trak_pb_begin_nested_short(b, TRAK_PB_Trace_packet);
  trak__put_process_descriptor(b);
  trak_pb_end_nested_short(b, pkt);
  pkt = trak_pb_begin_nested_short(b, TRAK_PB_Trace_packet);
  trak__put_thread_descriptor(b, t);
  trak_pb_end_nested_short(b, pkt);
}

/* Arms the next periodic clear after a restart at `ts`. Returns 1. */
static int restarted(trak__writer *w, uint64_t ts) {
  w->need_clear = 0;
  w->last_ts = ts;
  uint32_t period = w->session->clear_period_ms;
  w->next_clear_ts = period ? ts + (uint64_t)period * 1000000u : UINT64_MAX;
  return 1;
}

/* Writes the restart packets; they go into one chunk together. Returns 1, or -1 on loss. */
static TRAK__COLD int restart(trak__thread *t, trak__writer *w, uint64_t ts) {
  if (!w->icpt && atomic_load_explicit(&w->session->full, memory_order_relaxed)) return -1;
  intern_reset(w);
  if (w->ds) { /* custom data sources write their own restart (see trak_ds_new_packet) */
    trak__ds_incremental_reset(w);
    return restarted(w, ts);
  }
  encode_clear(t, w, ts);
  trak_pb_buf *b = &t->scratch;
  size_t len = trak_pb_buf_len(b);
  if (b->error) return -1;
  uint8_t *p = trak__writer_reserve(t, w, len);
  if (!p) return -1;
  /* Commit packet by packet so the chunk's packet count stays exact. */
  trak_pb_decoder dec;
  trak_pb_field f;
  trak_pb_decoder_init(&dec, b->start, len);
  const uint8_t *prev = b->start;
  while (trak_pb_decoder_next(&dec, &f) == 1) {
    size_t n = (size_t)(dec.p - prev);
    memcpy(p, prev, n);
    p += n;
    prev = dec.p;
    trak__writer_commit(w, p);
  }
  w->dropped = 0;
  w->started = 1;
  return restarted(w, ts);
}

int trak__writer_prepare(trak__thread *t, trak__writer *w, int slot, uint64_t ts) {
  uint32_t gen = atomic_load_explicit(&trak__slots[slot].gen, memory_order_acquire);
  if ((w->gen & ~TRAK__GEN_ICPT) != gen) {
    if (!(gen & 1)) return 0; /* stopped in between */
    if (bind(w, gen, slot) != 0) return -1;
  }
  if (ts >= w->next_clear_ts) w->need_clear = 1;
  if (w->need_clear) return restart(t, w, ts);
  return 1;
}

void trak__writer_release(trak__writer *w) {
  for (int i = 0; i < TRAK_MAX_SESSIONS && w->gen && w->chunk; i++) {
    if (trak__slots[i].session == w->session && atomic_load(&trak__slots[i].gen) == w->gen) {
      trak__session_retire_chunk(w->session, w);
      break;
    }
  }
  trak__writer_forget_state(w);
  free(w->tab);
  free(w->tracks);
  uint8_t ds = w->ds;
  memset(w, 0, sizeof *w);
  w->ds = ds;
}

static int tab_grow(trak__writer *w) {
  uint32_t cap = w->tab_cap ? w->tab_cap * 2 : TAB_INITIAL;
  trak__intern_entry *tab = calloc(cap, sizeof *tab);
  if (!tab) return -1;
  for (uint32_t i = 0; i < w->tab_cap; i++) {
    trak__intern_entry *e = &w->tab[i];
    if (e->epoch != w->epoch) continue;
    uint32_t j = trak__intern_hash(e->key, e->type, cap - 1);
    while (tab[j].epoch == w->epoch)
      j = (j + 1) & (cap - 1);
    tab[j] = *e;
  }
  free(w->tab);
  w->tab = tab;
  w->tab_cap = cap;
  return 0;
}

uint64_t trak__intern(trak__thread *t, trak__writer *w, uint32_t type, uint32_t field, uint64_t key,
                      const char *str, trak_interned_type *user, const void *value) {
  uint64_t iid = trak__intern_find(w, type, key);
  if (iid) return iid;
  if ((w->tab_count + 1) * 4 > w->tab_cap * 3) {
    if (w->tab_cap >= TAB_MAX || tab_grow(w) != 0) {
      w->need_clear = 1; /* restart with an empty table at the next event */
      w->next_clear_ts = 0;
      return 0;
    }
  }
  iid = ++w->next_iid[type];
  uint32_t mask = w->tab_cap - 1;
  uint32_t i = trak__intern_hash(key, type, mask);
  while (w->tab[i].epoch == w->epoch)
    i = (i + 1) & mask;
  w->tab[i].key = key;
  w->tab[i].type = (uint16_t)type;
  w->tab[i].epoch = w->epoch;
  w->tab[i].iid = (uint32_t)iid;
  w->tab_count++;
  trak_pb_buf *b = &t->interned;
  trak_pb_nested n = trak_pb_begin_nested_short(b, field);
  if (user) {
    user->write(b, iid, value);
  } else {
    trak_pb_put_varint(b, TRAK_PB_EventName_iid, iid);
    trak_pb_put_string(b, TRAK_PB_EventName_name, str);
  }
  trak_pb_end_nested_short(b, n);
  return iid;
}

int trak__writer_ensure_track(trak__thread *t, trak__writer *w, uint64_t uuid) {
  if (uuid == t->uuid) return 0;
  for (uint32_t i = 0; i < w->tracks_count; i++)
    if (w->tracks[i] == uuid) return 0;
  if (w->tracks_count == w->tracks_cap) {
    uint32_t cap = w->tracks_cap ? w->tracks_cap * 2 : 16;
    uint64_t *grown = realloc(w->tracks, cap * sizeof *grown);
    if (!grown) return -1;
    w->tracks = grown;
    w->tracks_cap = cap;
  }
  w->tracks[w->tracks_count++] = uuid;
  if (uuid == trak__process_uuid()) return 0; /* written at every restart */
  trak_pb_buf *b = &t->scratch;
  b->p = b->start;
  b->error = 0;
  trak_pb_nested pkt = trak_pb_begin_nested_short(b, TRAK_PB_Trace_packet);
  int found = trak__track_put_descriptor(b, uuid);
  trak_pb_end_nested_short(b, pkt);
  if (!found || b->error) return 0;
  return trak__writer_put_packet(t, w, b->start, trak_pb_buf_len(b));
}
