/*
** This file holds the import's decoding thread: a ring of batches of input passed from the
** importer's thread (which copies the bytes in and tokenizes the decoded packets) to the
** decoding thread (which frames and decodes them, read/stream_framing.c, inflating them first
** (stream_gzip.c) when the trace is gzip-compressed) and back, in order. Reading a file, the
** decoding thread can read the rest of it into the batches itself (trak__pipeline_read), off
** the importer's thread.
** Synchronisation is one mutex and two condition variables; no import state is shared.
*/
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "processor/import/region_ahead.h"
#include "processor/read/pipeline.h"
#include "processor/tables/prefault.h"
#include "processor/util/block_pool.h"

#ifndef SLOTS
#define SLOTS 4
#endif
#ifndef WAKE
/* reading the file, the decoding thread, once it waits for a free slot, is woken when this many
** are free: it then fills them in a row, one sleep and wake for several batches */
#define WAKE (SLOTS / 2)
#endif
#define PIECE (32u << 10)     /* bytes per batch: its decoded packets stay in the cache */
/* bytes per batch of plain JSON (a file the decoding thread reads, or bytes fed): the
** importer's thread applies a batch of JSON ops faster than the decoding thread reads one, so
** it catches up and sleeps at nearly every batch, and each wake is a futex call on the decoding
** thread, which bounds the read phase. At 2 M events, 256 KiB batches against 32 KiB: futex
** calls 11,078 -> 2,276, and the read phase's CPU down by a quarter on both threads
** (docs/performance.md, branch pipe32). A binary trace's batches stay small: its packets are
** read again from the cache. */
#ifndef JSON_PIECE
#define JSON_PIECE (256u << 10)
#endif
#define READ_CHUNK (1u << 20) /* the reads of processor.c's feed_file, as one thread makes them */
#define POOL 4 /* record blocks the decoding thread keeps faulted in for the importer's thread */
#define POOL_BLOCK (TRAK_EV_BLOCK_BYTES + 16u) /* sequence.c's largest blocks, 2 MiB */
/* a JSON file read of this many bytes or more has its args columns reserved for one row per
** ARGS_BYTES of it and made present ahead of the importer's thread by the decoding thread */
#ifndef ARGS_AHEAD_FROM
#define ARGS_AHEAD_FROM (16u << 20)
#endif
/* the record blocks of 64 KiB and more are made present this many bytes past the importer's
** write position in each (import/region_ahead.h) */
#define BLOCKS_LEAD (64u << 10)
/* such a JSON file also has the importer's aux words (imp->aux) reserved, one per AUX_BYTES of it,
** and made present ahead of their writes like the record blocks, until fewer than AUX_MARGIN
** words are left in the reserve: a batch of JSON_PIECE bytes adds fewer words than it has bytes, so
** the array never moves (trak__grow) while the decoding thread may be making its pages present */
#define AUX_BYTES 16
#define AUX_MARGIN (4 * JSON_PIECE)
#ifndef ARGS_BYTES
#define ARGS_BYTES 16
#endif

enum { SLOT_FREE, SLOT_FILLED, SLOT_DECODED };

struct trak_pipeline {
  trak_processor *p;
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t filled;  /* a slot became FILLED, or stop */
  pthread_cond_t decoded; /* a slot became DECODED */
  int state[SLOTS];
  int stop;
  int reader_waits; /* the decoding thread, reading, waits for a free slot */
  trak_frame_batch slot[SLOTS];
  size_t fill, apply;     /* the importer's thread: next slot to fill, next to apply */
  int kind;               /* TRAK_PIPE_*: what the batches hold */
  trak_framer fr;         /* the decoding thread's, until it has stopped */
  trak_json_import *json; /* TRAK_PIPE_JSON: its reader's state is the decoding thread's */
  /* trak__pipeline_read: the file the decoding thread reads the rest of the input from (once
  ** set, it fills the FREE slots itself), with fread or, when `map` is set, in place; the last
  ** read (`chunk`, READ_CHUNK bytes, `got` of them, `used` handed out: `buf`, or the mapped
  ** bytes, which plain binary traces frame in place instead), the input counters after it,
  ** and whether the file has ended */
  FILE *src;
  trak_file_map *map;
  uint8_t *buf;
  const uint8_t *chunk;
  size_t got, used;
  uint64_t fed, bytes_in, bytes_plain;
  int src_done;
  /* record blocks (small pages) made present by the decoding thread after each batch, taken
  ** by sequence.c on the importer's thread (imp->blocks); none until the importer's thread
  ** has taken one: small traces never use such blocks. NULL: none. */
  trak_block_pool *pool;
  /* JSON files read: the args columns' page-ahead (the tables' t->args.ahead), told the rows
  ** after each batch applied, run by the decoding thread after each batch. NULL: none. */
  trak_ahead_job *args_ahead;
  /* Reading a file: the record blocks' page-ahead (imp->blocks_ahead), told the write positions
  ** after each batch applied, run by the decoding thread after each batch. NULL: none. */
  trak_region_ahead *blocks_ahead;
  const void *aux_ahead; /* the importer's thread's: imp->aux as reserved and tracked, or NULL */
};

/* The bytes of a batch: JSON_PIECE for plain JSON, else PIECE (compressed bytes inflate to more). */
static size_t piece_bytes(const trak_pipeline *pl) {
  return pl->kind == TRAK_PIPE_JSON ? JSON_PIECE : PIECE;
}

/* Fills batch `b` with the next piece of pl->src as trak__pipeline_feed would have cut the
** feed_file read it is in (the decoding thread, reading): copied from the read, or pointing
** into the mapped file. Returns 0 at the end of the file. */
static int read_piece(trak_pipeline *pl, trak_frame_batch *b) {
  if (pl->used == pl->got) {
    if (pl->map) {
      uint64_t at = pl->fed; /* plain input: the stream offset is the file offset */
      size_t end = trak__file_map_ready(pl->map, at + READ_CHUNK);
      pl->got = end > at ? end - (size_t)at : 0; /* the file may have shrunk */
      pl->chunk = pl->map->data + at;
    } else {
      pl->got = fread(pl->buf, 1, READ_CHUNK, pl->src);
      pl->chunk = pl->buf;
    }
    pl->used = 0;
    if (!pl->got) return 0;
    pl->fed += pl->got, pl->bytes_in += pl->got, pl->bytes_plain += pl->got;
  }
  size_t piece = piece_bytes(pl);
  size_t n = pl->got - pl->used < piece ? pl->got - pl->used : piece;
  if (pl->map) {
    b->data = pl->chunk + pl->used;
  } else {
    trak__grow((void **)&b->bytes, &b->cap, n, 1);
    memcpy(b->bytes, pl->chunk + pl->used, n);
    b->data = b->bytes;
  }
  pl->used += n;
  b->n = n;
  b->call_end = pl->used == pl->got;
  b->bytes_in = pl->bytes_in, b->bytes_plain = pl->bytes_plain;
  return 1;
}

/* The same for a plain binary trace's mapped file: its packets are framed and decoded in place
** (trak__stream_frame_mapped), the batch's counters those of the read its packets end in. */
static int read_framed(trak_pipeline *pl, trak_frame_batch *b) {
  uint64_t in = trak__stream_frame_mapped(&pl->fr, b, pl->map, PIECE, READ_CHUNK);
  if (!in) { /* the end: the counters count the whole file, as after fread's last read */
    pl->fed = pl->bytes_in = pl->bytes_plain = pl->map->end;
    return 0;
  }
  b->call_end = 1;
  b->bytes_in = b->bytes_plain = in;
  return 1;
}

static void *decode_main(void *arg) {
  trak_pipeline *pl = arg;
  size_t i = 0;
  for (;;) {
    pthread_mutex_lock(&pl->mu);
    int reads = 0; /* slot i is the next to fill, and this thread fills it from pl->src */
    while (pl->state[i] != SLOT_FILLED) {
      int reading = (pl->src || pl->map) && !pl->src_done;
      reads = reading && pl->state[i] == SLOT_FREE;
      if (reads || pl->stop) break;
      pl->reader_waits = reading;
      pthread_cond_wait(&pl->filled, &pl->mu);
      pl->reader_waits = 0;
    }
    if (pl->state[i] != SLOT_FILLED && !reads) { /* stopped, nothing left to decode */
      pthread_mutex_unlock(&pl->mu);
      return NULL;
    }
    pthread_mutex_unlock(&pl->mu);
    trak_frame_batch *b = &pl->slot[i];
    int in_place = reads && pl->map && pl->kind == TRAK_PIPE_BINARY; /* framed as it is read */
    if (reads && !(in_place ? read_framed(pl, b) : read_piece(pl, b))) {
      pthread_mutex_lock(&pl->mu);
      pl->src_done = 1;
      pthread_cond_signal(&pl->decoded);
      pthread_mutex_unlock(&pl->mu);
      continue;
    }
    if (in_place)
      ;
    else if (pl->kind == TRAK_PIPE_GZIP || pl->kind == TRAK_PIPE_GZIP_JSON)
      trak__stream_inflate_batch(&pl->fr, pl->kind == TRAK_PIPE_GZIP_JSON ? pl->json : NULL, b);
    else if (pl->kind == TRAK_PIPE_JSON)
      trak__json_import_read(pl->json, b->data, b->n, &b->json_ops);
    else
      trak__stream_frame_batch(&pl->fr, b);
    pthread_mutex_lock(&pl->mu);
    pl->state[i] = SLOT_DECODED;
    pthread_cond_signal(&pl->decoded);
    /* both set under mu by the importer's thread, which may start a file's read (and make the
    ** jobs) while this thread runs: read here, under mu, as the jobs were published */
    trak_region_ahead *blocks_ahead = pl->blocks_ahead;
    trak_ahead_job *args_ahead = pl->args_ahead;
    pthread_mutex_unlock(&pl->mu);
    i = (i + 1) % SLOTS;
    if (pl->pool) trak__block_pool_fill(pl->pool);
    if (args_ahead) trak__ahead_job_idle(args_ahead);
    if (blocks_ahead) trak__region_ahead_idle(blocks_ahead);
  }
}

trak_pipeline *trak__pipeline_start(trak_processor *p, int kind) {
  trak_pipeline *pl = calloc(1, sizeof *pl);
  if (!pl) return NULL;
  pl->p = p;
  pl->kind = kind;
  pl->json = p->json;
  if (kind == TRAK_PIPE_GZIP || kind == TRAK_PIPE_GZIP_JSON) { /* inflate moves over too */
    pl->fr.inf = &p->inf;
    pl->fr.plain = p->imp->bytes_plain;
  }
  p->imp->blocks = pl->pool = trak__block_pool_new(POOL_BLOCK, POOL, 1);
  pl->fr.carry = p->pending; /* the framing so far moves to the decoding thread */
  pl->fr.offset = p->plain_offset;
  pl->fr.skip_left = p->skip_left;
  pl->fr.dead = p->dead;
  pthread_mutex_init(&pl->mu, NULL);
  pthread_cond_init(&pl->filled, NULL);
  pthread_cond_init(&pl->decoded, NULL);
  if (pthread_create(&pl->thread, NULL, decode_main, pl)) {
    p->imp->blocks = NULL;
    trak__block_pool_free(pl->pool);
    pthread_mutex_destroy(&pl->mu);
    pthread_cond_destroy(&pl->filled);
    pthread_cond_destroy(&pl->decoded);
    free(pl);
    return NULL;
  }
  memset(&p->pending, 0, sizeof p->pending);
  return pl;
}

/* Waits for the oldest slot to be decoded and applies it on this (the importer's) thread. */
static void apply_oldest(trak_pipeline *pl) {
  size_t i = pl->apply;
  pthread_mutex_lock(&pl->mu);
  while (pl->state[i] != SLOT_DECODED)
    pthread_cond_wait(&pl->decoded, &pl->mu);
  pthread_mutex_unlock(&pl->mu);
  trak__stream_apply_batch(pl->p, &pl->slot[i]);
  pthread_mutex_lock(&pl->mu);
  pl->state[i] = SLOT_FREE;
  pthread_mutex_unlock(&pl->mu);
  pl->apply = (i + 1) % SLOTS;
}

void trak__pipeline_feed(trak_pipeline *pl, const uint8_t *data, size_t len) {
  while (len) {
    size_t piece = piece_bytes(pl);
    size_t n = len < piece ? len : piece;
    size_t i = pl->fill;
    pthread_mutex_lock(&pl->mu);
    int busy = pl->state[i] != SLOT_FREE;
    pthread_mutex_unlock(&pl->mu);
    if (busy) apply_oldest(pl); /* the ring is full: i is the oldest */
    trak_frame_batch *b = &pl->slot[i];
    trak__grow((void **)&b->bytes, &b->cap, n, 1);
    memcpy(b->bytes, data, n);
    b->data = b->bytes;
    b->n = n;
    b->call_end = n == len;
    b->bytes_in = pl->p->imp->bytes_in, b->bytes_plain = pl->p->imp->bytes_plain;
    pthread_mutex_lock(&pl->mu);
    pl->state[i] = SLOT_FILLED;
    pthread_cond_signal(&pl->filled);
    pthread_mutex_unlock(&pl->mu);
    pl->fill = (i + 1) % SLOTS;
    data += n, len -= n;
  }
}

int trak__pipeline_reads(const trak_pipeline *pl) {
  return pl->kind == TRAK_PIPE_BINARY || pl->kind == TRAK_PIPE_JSON;
}

void trak__pipeline_read(trak_pipeline *pl, FILE *f, trak_file_map *m, uint64_t total) {
  trak_processor *p = pl->p;
  if (!m || !m->data) {
    m = NULL;
    pl->buf = malloc(READ_CHUNK);
    if (!pl->buf) abort();
  }
  trak_tables *t = p->imp->tables;
  int args_ahead = pl->kind == TRAK_PIPE_JSON && total >= ARGS_AHEAD_FROM &&
                   !trak__args_ahead_start(t, (size_t)(total / ARGS_BYTES));
  trak_region_ahead *blocks_ahead = trak__region_ahead_new(BLOCKS_LEAD);
  trak_importer *imp = p->imp;
  if (blocks_ahead && pl->kind == TRAK_PIPE_JSON && total >= ARGS_AHEAD_FROM) {
    trak__grow((void **)&imp->aux.v, &imp->aux.cap, (size_t)(total / AUX_BYTES), sizeof *imp->aux.v);
    trak__region_ahead_track_words(blocks_ahead, imp->aux.v, imp->aux.cap * sizeof *imp->aux.v,
                                   &imp->aux.n);
    pl->aux_ahead = imp->aux.v;
  }
  pthread_mutex_lock(&pl->mu);
  if (args_ahead) pl->args_ahead = t->args.ahead;
  if (blocks_ahead && !pl->blocks_ahead) p->imp->blocks_ahead = pl->blocks_ahead = blocks_ahead;
  else
    trak__region_ahead_free(blocks_ahead); /* a second read keeps the first one's */
  pl->fed = p->fed, pl->bytes_in = p->imp->bytes_in, pl->bytes_plain = p->imp->bytes_plain;
  pl->src = f; /* the decoding thread fills the FREE slots from slot pl->fill on */
  pl->map = m;
  pthread_cond_signal(&pl->filled);
  pthread_mutex_unlock(&pl->mu);
  uint64_t next_report = p->fed + (16u << 20);
  for (;;) {
    size_t i = pl->apply;
    pthread_mutex_lock(&pl->mu);
    while (pl->state[i] != SLOT_DECODED && !(pl->src_done && pl->state[i] == SLOT_FREE))
      pthread_cond_wait(&pl->decoded, &pl->mu);
    int done = pl->state[i] != SLOT_DECODED; /* the file has ended and every batch is applied */
    pthread_mutex_unlock(&pl->mu);
    if (done) break;
    trak__stream_apply_batch(p, &pl->slot[i]);
    if (pl->args_ahead) trak__ahead_job_tell(pl->args_ahead, t->args.n);
    if (pl->aux_ahead && (imp->aux.v != pl->aux_ahead || imp->aux.cap - imp->aux.n < AUX_MARGIN)) {
      trak__region_ahead_drop(pl->blocks_ahead, pl->aux_ahead); /* before it may move */
      pl->aux_ahead = NULL;
    }
    trak__region_ahead_tell(imp->blocks_ahead);
    uint64_t in = pl->slot[i].bytes_in;
    const uint8_t *at = pl->slot[i].data; /* in the map, or a copy fed before the reading */
    if (m && at >= m->data && at < m->data + m->size)
      trak__file_map_drop(m, (size_t)(at - m->data));
    pthread_mutex_lock(&pl->mu);
    pl->state[i] = SLOT_FREE;
    size_t free_slots = 0; /* the reader is woken once WAKE are free: it fills them in a row */
    for (size_t k = 0; pl->reader_waits && k < SLOTS; k++)
      free_slots += pl->state[k] == SLOT_FREE;
    pthread_mutex_unlock(&pl->mu);
    if (free_slots >= WAKE) pthread_cond_signal(&pl->filled); /* unlocked: it finds mu free */
    pl->apply = (i + 1) % SLOTS;
    if (p->opts.progress && in >= next_report) { /* as feed_file reports its reads */
      p->opts.progress(p->opts.user, in, total);
      next_report = in + (16u << 20);
    }
  }
  pl->fill = pl->apply;
  trak__region_ahead_stop(pl->blocks_ahead); /* the blocks may be freed from now on */
  p->imp->blocks_ahead = NULL;
  if (pl->kind == TRAK_PIPE_JSON) p->plain_offset += pl->fed - p->fed; /* as plain_dispatch */
  p->fed = pl->fed, p->imp->bytes_in = pl->bytes_in, p->imp->bytes_plain = pl->bytes_plain;
  free(pl->buf);
  pl->buf = NULL;
}

static void stop(trak_pipeline *pl) {
  pthread_mutex_lock(&pl->mu);
  pl->stop = 1;
  pthread_cond_signal(&pl->filled);
  pthread_mutex_unlock(&pl->mu);
  pthread_join(pl->thread, NULL);
  pthread_mutex_destroy(&pl->mu);
  pthread_cond_destroy(&pl->filled);
  pthread_cond_destroy(&pl->decoded);
}

static void release(trak_pipeline *pl) {
  pl->p->imp->blocks = NULL;
  if (pl->args_ahead) trak__args_ahead_end(pl->p->imp->tables);
  trak__region_ahead_free(pl->blocks_ahead);
  trak__block_pool_free(pl->pool);
  for (size_t i = 0; i < SLOTS; i++) {
    free(pl->slot[i].bytes);
    trak_vec_free(pl->slot[i].items);
    trak_vec_free(pl->slot[i].fpre.bundles);
    trak_vec_free(pl->slot[i].fpre.evs);
    for (size_t k = 0; k < pl->slot[i].chunks.n; k++)
      trak_vec_free(pl->slot[i].chunks.v[k]);
    trak_vec_free(pl->slot[i].chunks);
    trak__json_ops_free(&pl->slot[i].json_ops);
  }
  trak_vec_free(pl->fr.carry);
  free(pl->buf);
  free(pl);
}

void trak__pipeline_finish(trak_pipeline *pl) {
  for (;;) { /* FILLED slots are decoded before the thread stops */
    pthread_mutex_lock(&pl->mu);
    int left = pl->state[pl->apply] != SLOT_FREE;
    pthread_mutex_unlock(&pl->mu);
    if (!left) break;
    apply_oldest(pl);
  }
  stop(pl);
  trak_processor *p = pl->p;
  if (pl->kind == TRAK_PIPE_JSON || pl->kind == TRAK_PIPE_GZIP_JSON) {
    /* the reader's state is in p->json, and inflate's in p->inf, the importer's again */
    if (pl->kind == TRAK_PIPE_GZIP_JSON) p->imp->bytes_plain = p->plain_offset = pl->fr.plain;
    release(pl);
    return;
  }
  trak_vec_free(p->pending);
  p->pending = pl->fr.carry;
  memset(&pl->fr.carry, 0, sizeof pl->fr.carry);
  p->plain_offset = pl->fr.offset;
  p->skip_left = pl->fr.skip_left;
  p->dead |= pl->fr.dead;
  if (pl->kind == TRAK_PIPE_GZIP) p->imp->bytes_plain = pl->fr.plain;
  release(pl);
}

void trak__pipeline_free(trak_pipeline *pl) {
  if (!pl) return;
  stop(pl);
  release(pl);
}
