/*
** This file holds packet sequences: their incremental state (interned strings per kind,
** TracePacketDefaults) and the block lists that collect their event records in file order.
** What fills the interned tables from a packet's InternedData is protobuf's business
** (proto/interned_data.c); JSON traces use sequences only for their record lists.
*/
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "processor/import/importer.h"
#include "processor/import/region_ahead.h"
#include "processor/import/sequence_put.h"
#include "processor/util/block_pool.h"
#include "util/limits.h"

/* The bytes the import's sequences and records may take so far (docs/limits.md). */
static uint64_t records_bound(const trak_importer *imp) {
  return TRAK_LIMIT_RECORD_RATIO * (imp->bytes_plain + imp->inflated_total) +
         TRAK_LIMIT_RECORD_SLACK;
}

/* The sink given for a sequence refused past the bound: its state is emptied at each use, so
** nothing passes from one refused sequence to another, and it never holds a record. */
__attribute__((noinline, cold)) static trak_sequence *refuse(trak_importer *imp, uint32_t id) {
  trak_sequence *sink = imp->seqs.refused;
  if (!sink) {
    sink = imp->seqs.refused = calloc(1, sizeof *sink);
    if (!sink) abort();
    sink->refused = 1;
    trak__report(imp, TRAK_STAT_IMPORT_MEMORY_LIMIT,
                 "sequence %u: %zu sequences and their records would take more than the bound "
                 "of %d times the trace's %llu bytes read so far plus %llu; its events are "
                 "dropped, as are those of any new sequence while the import stays past it",
                 id, imp->seqs.all.n, TRAK_LIMIT_RECORD_RATIO,
                 (unsigned long long)(imp->bytes_plain + imp->inflated_total),
                 (unsigned long long)TRAK_LIMIT_RECORD_SLACK);
  }
  trak__sequence_clear(sink);
  sink->id = id;
  sink->thread_track = sink->last_track = TRAK_NULL_U32;
  sink->last_ts = INT64_MIN;
  imp->seqs.last = NULL; /* the next packet looks its id up again */
  return sink;
}

trak_sequence *trak__sequence_get(trak_importer *imp, uint32_t id) {
  if (TRAK_LIKELY(imp->seqs.last && imp->seqs.last->id == id)) return imp->seqs.last;
  uint32_t *found = trak__map_get(&imp->seqs.by_id, id);
  if (found) return imp->seqs.last = imp->seqs.all.v[*found];
  if (imp->record_bytes + sizeof(trak_sequence) > records_bound(imp)) return refuse(imp, id);
  int added;
  uint32_t *slot = trak__map_put(&imp->seqs.by_id, id, (uint32_t)imp->seqs.all.n, &added);
  (void)slot;
  trak_sequence *seq = calloc(1, sizeof *seq);
  if (!seq) abort();
  imp->record_bytes += sizeof *seq; /* toward the bound new_block enforces */
  seq->id = id;
  seq->first_packet_index = imp->packet_index;
  seq->thread_track = TRAK_NULL_U32;
  seq->last_ts = INT64_MIN;
  seq->last_track = TRAK_NULL_U32;
  trak_vec_push(imp->seqs.all, seq);
  return imp->seqs.last = seq;
}

void trak__sequence_clear(trak_sequence *seq) {
  seq->intern_epoch++;
  for (int k = 0; k < TRAK_INTERN_KINDS; k++)
    trak__map_clear(&seq->interned[k]);
  seq->default_clock = 0;
  seq->has_default_track = 0;
  seq->default_extra_uuids.n = 0;
  seq->default_extra_double_uuids.n = 0;
  seq->has_perf_defaults = 0;
  seq->state_valid = 1;
  seq->seen_clear = 1;
  seq->timestamps_valid = 0;
  trak__map_clear(&seq->inc_index);
  seq->inc_values.n = 0;
}

double trak__counter_add_incremental(trak_sequence *seq, uint32_t track, double v) {
  int added;
  uint32_t *slot = trak__map_put(&seq->inc_index, track, (uint32_t)seq->inc_values.n, &added);
  if (added) trak_vec_push(seq->inc_values, 0.0);
  return seq->inc_values.v[*slot] += v;
}

const char *const trak__intern_kind_names[TRAK_INTERN_KINDS] = {"event category",
                                                                "event name",
                                                                "debug annotation name",
                                                                "debug annotation type name",
                                                                "debug annotation string",
                                                                "source location",
                                                                "log message body",
                                                                "correlation id",
                                                                "histogram name",
                                                                "build id",
                                                                "mapping path",
                                                                "function name",
                                                                "source path",
                                                                "mapping",
                                                                "frame",
                                                                "callstack",
                                                                "kernel symbol",
                                                                "compute arg name"};

__attribute__((cold)) uint32_t trak__interned_missing(trak_importer *imp, trak_sequence *seq,
                                                      int kind, uint64_t iid) {
  trak__report(imp, TRAK_STAT_INTERNED_ERRORS, "%s iid %llu is not interned on sequence %u",
               trak__intern_kind_names[kind], (unsigned long long)iid, seq->id);
  if (kind == TRAK_INTERN_CATEGORY) { /* Perfetto names such a category "unknown(<iid>)" */
    char buf[40];
    int n = snprintf(buf, sizeof buf, "unknown(%llu)", (unsigned long long)iid);
    return trak__strpool_intern(&imp->tables->strings, buf, (size_t)n);
  }
  return 0;
}

static size_t block_bytes(uint32_t cap) {
  return sizeof(trak_ev_block) + cap;
}
_Static_assert(sizeof(trak_ev_block) == 16, "the largest blocks are 2 MiB");

void trak__block_free(trak_ev_block *b) {
  if (b->cap == TRAK_EV_BLOCK_BYTES)
    munmap(b, block_bytes(b->cap));
  else
    free(b);
}

/* Blocks of this many bytes or more are made present ahead of their writes (imp->blocks_ahead);
** smaller ones mostly lie in pages of the heap already present. */
#define AHEAD_FROM (64u << 10)

/* The next block of `seq`: twice the last one's size, up to TRAK_EV_BLOCK_BYTES. Returns NULL
** (reported and counted) past the import's memory bound or when memory runs out. */
__attribute__((noinline, cold)) static trak_ev_block *new_block(trak_importer *imp,
                                                                trak_sequence *seq) {
  uint32_t cap = seq->tail ? seq->tail->cap * 2 + 16 : TRAK_EV_BLOCK_FIRST;
  if (cap > TRAK_EV_BLOCK_BYTES) cap = TRAK_EV_BLOCK_BYTES;
  size_t bytes = block_bytes(cap);
  if (seq->refused) {
    trak__report(imp, TRAK_STAT_IMPORT_MEMORY_LIMIT,
                 "sequence %u was refused (too many sequences for the trace's size); event "
                 "dropped",
                 seq->id);
    return NULL;
  }
  if (imp->record_bytes + bytes > records_bound(imp)) {
    trak__report(imp, TRAK_STAT_IMPORT_MEMORY_LIMIT,
                 "the import's records would take %llu bytes, past the bound of %d times the "
                 "trace's %llu bytes plus %llu; event dropped",
                 (unsigned long long)(imp->record_bytes + bytes), TRAK_LIMIT_RECORD_RATIO,
                 (unsigned long long)(imp->bytes_plain + imp->inflated_total),
                 (unsigned long long)TRAK_LIMIT_RECORD_SLACK);
    return NULL;
  }
  trak_ev_block *b;
  int present = 0; /* its pages were made present by another thread */
  if (cap == TRAK_EV_BLOCK_BYTES) {
    void *mem = trak__block_pool_take(imp->blocks); /* made present on the decoding thread */
    present = mem != NULL;
    if (!mem) {
      mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (mem != MAP_FAILED) madvise(mem, bytes, MADV_NOHUGEPAGE); /* as the pool's; a hint */
    }
    b = mem == MAP_FAILED ? NULL : mem;
  } else {
    b = malloc(bytes);
  }
  if (!b) {
    trak__report(imp, TRAK_STAT_IMPORT_MEMORY_LIMIT,
                 "out of memory for %zu more bytes of records (%llu held); event dropped", bytes,
                 (unsigned long long)imp->record_bytes);
    return NULL;
  }
  imp->record_bytes += bytes;
  if (imp->blocks_ahead) /* this block, in the last one's place */
    trak__region_ahead_track(imp->blocks_ahead, seq->tail,
                             cap >= AHEAD_FROM && !present ? (void *)b : NULL, bytes,
                             offsetof(trak_ev_block, data), &b->used);
  b->next = NULL;
  b->used = 0;
  b->cap = cap;
  if (seq->tail)
    seq->tail->next = b;
  else
    seq->head = b;
  seq->tail = b;
  return b;
}

/* Size code 0-3 of a 4-byte field of the second form: its bytes and mask. */
static const uint8_t len32[4] = {0, 1, 2, 4};
static const uint32_t mask32[4] = {0, 0xFF, 0xFFFF, 0xFFFFFFFF};

/* Writes field `v` of a packed record at `p` in 0, 1, 2 or 4 bytes (one 4-byte store: the
** block's slack allows it), its size code into *h at `shift`; returns the bytes after it. */
static inline uint8_t *pack_field(uint8_t *p, uint32_t v, uint32_t *h, int shift) {
  uint32_t code = (v != 0) + (v > 0xFF) + (v > 0xFFFF);
  memcpy(p, &v, 4);
  *h |= code << shift;
  return p + len32[code];
}

/* Writes `ev` at `p` in the second form (sequence.h), with the timestamp's delta `d` and the
** packet index's delta `pd`; returns the bytes after it. */
static inline uint8_t *pack_any(uint8_t *p, const trak_ev *ev, uint64_t d, uint32_t pd,
                                uint32_t track_field) {
  uint8_t *start = p;
  uint32_t c = (d > 0xFF) + (d > 0xFFFF) + (d > 0xFFFFFFFF);
  uint32_t h0 = (ev->track >> TRAK_EV_TYPE_SHIFT) | c << 4, h1 = 0;
  p += 3;
  memcpy(p, &d, 8);
  p += 1u << c;
  p = pack_field(p, pd, &h0, 6);
  p = pack_field(p, track_field, &h1, 0);
  p = pack_field(p, ev->u.s.name, &h1, 2);
  p = pack_field(p, ev->u.s.cat, &h1, 4);
  p = pack_field(p, ev->arg_set_id + 1, &h1, 6);
  if (ev->aux) {
    memcpy(p, &ev->aux, 4);
    p += 4;
  }
  start[0] = (uint8_t)h0;
  start[1] = (uint8_t)h1;
  start[2] = ev->aux != 0;
  return p;
}

const uint8_t *trak__ev_unpack_any(const uint8_t *p, trak_ev *ev) {
  uint32_t h0 = p[0], h1 = p[1], c = h0 >> 4 & 3, v;
  uint64_t d;
  int aux = p[2];
  memcpy(&d, p + 3, 8);
  ev->ts = (int64_t)((uint64_t)ev->ts + (d & (~0ull >> (64 - (8u << c)))));
  p += 3 + (1u << c);
#define FIELD(code) (memcpy(&v, p, 4), p += len32[code], v & mask32[code])
  ev->pkt += FIELD(h0 >> 6);
  uint32_t track = FIELD(h1 & 3);
  track = track ? track - 1 : ev->track & TRAK_EV_TRACK_MASK;
  ev->track = (h0 & 7) << TRAK_EV_TYPE_SHIFT | track;
  ev->u.s.name = FIELD(h1 >> 2 & 3);
  ev->u.s.cat = FIELD(h1 >> 4 & 3);
  ev->arg_set_id = FIELD(h1 >> 6) - 1;
  ev->aux = FIELD(aux ? 3 : 0);
#undef FIELD
  return p;
}

/* trak__sequence_push of a record that is not common or needs a new block. */
__attribute__((noinline)) static void push_any(trak_importer *imp, trak_sequence *seq,
                                               const trak_ev *ev) {
  trak_ev_block *b = seq->tail;
  if (TRAK_UNLIKELY(!b || b->cap - b->used < TRAK_EV_BLOCK_SLACK) && !(b = new_block(imp, seq)))
    return;
  uint32_t track = ev->track & TRAK_EV_TRACK_MASK;
  uint8_t *p = b->data + b->used;
  uint8_t *end = pack_any(p, ev, (uint64_t)ev->ts - (uint64_t)seq->pack_ts, ev->pkt - seq->pack_pkt,
                          track == seq->pack_track ? 0 : track + 1);
  b->used += (uint32_t)(end - p);
  trak__sequence_pushed(imp, seq, ev->ts, ev->pkt, ev->track >> TRAK_EV_TYPE_SHIFT, track);
}

/* (trak__sequence_put, sequence_put.h, writes the same records from fields in registers: JSON's
** importer, inline. This function stays apart for the protobuf importer's records, most of them
** the common form: going through trak__sequence_put cost it 12 instructions a record.) */
void trak__sequence_push(trak_importer *imp, trak_sequence *seq, const trak_ev *ev) {
  trak_ev_block *b = seq->tail;
  /* the common form (sequence.h) when it fits, against the previous record */
  uint64_t d = (uint64_t)ev->ts - (uint64_t)seq->pack_ts;
  uint32_t pd = ev->pkt - seq->pack_pkt, track = ev->track & TRAK_EV_TRACK_MASK;
  if (TRAK_UNLIKELY(!b || b->cap - b->used < TRAK_EV_BLOCK_SLACK ||
                    ((d >> 20) | (pd >> 8) | ((ev->u.s.name | ev->u.s.cat) >> 16) | ev->aux |
                     (ev->arg_set_id + 1) | (track ^ seq->pack_track)) != 0)) {
    push_any(imp, seq, ev);
    return;
  }
  uint64_t w = (ev->track >> TRAK_EV_TYPE_SHIFT) | TRAK_EV_PACKED_COMMON | d << 4 |
               (uint64_t)pd << 24 | (uint64_t)ev->u.s.name << 32 | (uint64_t)ev->u.s.cat << 48;
  memcpy(b->data + b->used, &w, 8);
  b->used += 8;
  trak__sequence_pushed(imp, seq, ev->ts, ev->pkt, ev->track >> TRAK_EV_TYPE_SHIFT, track);
}

uint8_t *trak__sequence_push_held(trak_importer *imp, trak_sequence *seq, const trak_ev *ev) {
  trak_ev held = *ev;
  held.arg_set_id = UINT32_MAX - 1; /* + 1 takes the field's 4 bytes */
  size_t n = seq->n_events;
  push_any(imp, seq, &held);
  if (seq->n_events == n) return NULL; /* dropped */
  trak_ev_block *b = seq->tail;
  return b->data + b->used - 4 - (ev->aux ? 4 : 0); /* aux, if any, ends the record */
}

uint8_t *trak__sequence_put_any(trak_importer *imp, trak_sequence *seq, const trak_ev *ev,
                                int held) {
  if (held) return trak__sequence_push_held(imp, seq, ev);
  push_any(imp, seq, ev);
  return NULL;
}

void trak__sequence_held_args(uint8_t *at, uint32_t arg_set_id) {
  uint32_t v = arg_set_id + 1;
  memcpy(at, &v, 4);
}

void trak__sequence_unpack(trak_sequence *seq) {
  trak_ev *all = malloc((seq->n_events ? seq->n_events : 1) * sizeof *all);
  if (!all) abort();
  trak_ev ev;
  memset(&ev, 0, sizeof ev);
  size_t n = 0, i = 0;
  while (seq->head) {
    trak_ev_block *b = seq->head;
    for (const uint8_t *p = b->data, *end = b->data + b->used; p < end; i++) {
      p = trak__ev_unpack(p, &ev);
      if (i >= seq->drop_n || ev.ts >= seq->drop_before) all[n++] = ev;
    }
    seq->head = b->next;
    trak__block_free(b);
  }
  seq->tail = NULL;
  seq->n_events = n;
  seq->drop_n = 0;
  free(seq->all);
  seq->all = all;
}

/* Frees one sequence: its state, its record blocks, itself. NULL is allowed. */
static void sequence_free(trak_sequence *seq) {
  if (!seq) return;
  for (int k = 0; k < TRAK_INTERN_KINDS; k++)
    trak__map_free(&seq->interned[k]);
  trak_vec_free(seq->default_extra_uuids);
  trak_vec_free(seq->default_extra_double_uuids);
  trak_vec_free(seq->perf_defaults);
  trak__map_free(&seq->inc_index);
  free(seq->losses);
  free(seq->all);
  trak_vec_free(seq->inc_values);
  while (seq->head) {
    trak_ev_block *next = seq->head->next;
    trak__block_free(seq->head);
    seq->head = next;
  }
  free(seq);
}

void trak__sequences_free(trak_sequences *s) {
  for (size_t i = 0; i < s->all.n; i++)
    sequence_free(s->all.v[i]);
  sequence_free(s->refused);
  trak_vec_free(s->all);
  trak__map_free(&s->by_id);
}
