/*
** The daemon's record of one producer's part in one session, an attachment: the producer's
** shared chunk buffer (a memfd both map) and its packet sequences. chunks.c copies an
** attachment's chunks into the session's central buffer; daemon_clients.c owns attachments
** and decides when to copy (a commit, a flush answer, a producer gone).
*/
#ifndef TRAK_SDK_SYSTEM_DAEMON_H
#define TRAK_SDK_SYSTEM_DAEMON_H

#include "system/system.h"

/* A producer sequence and the daemon-wide sequence id it is given. */
typedef struct trak__seqmap {
  uint32_t local, global;
} trak__seqmap;

/* What a scrape copied of a chunk still being written: the next copy of that chunk takes only
** what follows. */
typedef struct trak__scraped {
  uint32_t writer, cindex; /* the chunk's identity when scraped */
  uint32_t bytes, packets; /* copied so far; 0: nothing */
  uint32_t central;        /* the central chunk that took it */
} trak__scraped;

typedef struct trak__attach {
  uint32_t session_id; /* 0: unused */
  int32_t uid, pid;    /* the producer's credentials (SO_PEERCRED), stamped on its packets */
  uint8_t *mem;        /* the shared buffer: nchunks chunks of the session's chunk size */
  size_t size;
  uint32_t nchunks;
  trak__scraped *scr; /* per chunk of mem */
  trak__seqmap *seqs;
  size_t nseqs;
  uint64_t lost;         /* the producer's last reported loss count */
  uint64_t lost_pending; /* lost packets it reported that are not believed yet (daemon_clients.c) */
  uint64_t copied;       /* packets copied from it (framed and counted by the daemon) */
} trak__attach;

/* What copying needs from the daemon as a whole. */
typedef struct trak__copier {
  uint8_t *scratch;  /* TRAK__CHUNK_MAX bytes: where a chunk goes when no central room is left */
  uint32_t last_seq; /* the last daemon-wide sequence id handed out */
} trak__copier;

enum {
  TRAK__TAKE_ALL,   /* a commit, or a salvage: the rest of the chunk; it becomes free */
  TRAK__TAKE_SCRAPE /* after a flush: what a chunk being written holds; its writer goes on */
};

/* Copies chunk `i` of `a` into `central`, checking it: index in range, claimed size within the
** chunk, payload exactly the claimed number of Trace.packet fields, and after a scrape the
** same chunk grown, not another or a shrunk one. Returns 1 when it copied packets (or lost
** them to a full buffer, counted there), 0 when there was nothing new, -1 with the reason in
** `why` when the chunk is malformed (its producer is then to be disconnected). */
int trak__attach_take(trak__copier *cp, trak__attach *a, struct trak_session *central, uint32_t i,
                      int how, char *why, size_t n) TRAK__HIDDEN;
/* Unmaps and frees what `a` holds, and clears it. */
void trak__attach_free(trak__attach *a) TRAK__HIDDEN;

/* ---- session_config.c: the TraceConfig fields the daemon acts on ---- */

/* Copies the TraceConfig [cfg, len) without the fields only the daemon acts on (buffers,
** output, duration) into `out`. Returns 1 when it asked for write_into_file. */
int trak__config_for_buffer(const uint8_t *cfg, size_t len, trak_pb_buf *out) TRAK__HIDDEN;
/* Appends the config's first buffer to `b`: its size capped at `cap_kb` (64 KiB for a
** producer, whose real buffer is its memfd) and its fill policy. */
void trak__config_put_buffer(trak_pb_buf *b, const uint8_t *cfg, size_t len, uint32_t cap_kb,
                             int for_producer) TRAK__HIDDEN;
/* The session's write period (file_write_period_ms, default 1000, at least 100) and flush
** period (flush_period_ms, at least 50; a `stream`ing session's default is its write period). */
void trak__config_periods(const uint8_t *cfg, size_t len, int stream, uint32_t *write_ms,
                          uint32_t *flush_ms) TRAK__HIDDEN;

#endif /* TRAK_SDK_SYSTEM_DAEMON_H */
