/*
** The internals of `trak probes`' ftrace reader, shared by ftrace_format.c (tracefs format
** files), ftrace_page.c (the ring buffer page decoder), ftrace_bundle.c (events into
** FtraceEventBundle packets), tracefs.c (turning tracing on and restoring it) and probes.c (the
** data sources). Nothing here allocates on the per-event path.
*/
#ifndef TRAK_PROBES_FTRACE_H
#define TRAK_PROBES_FTRACE_H

#include <stddef.h>
#include <stdint.h>

#include "trak/error.h"
#include "trak/pb.h"

#ifndef TRAK__HIDDEN
#define TRAK__HIDDEN __attribute__((visibility("hidden")))
#endif

/* ---- format files (ftrace_format.c) ---- */

/* How a field's bytes are read. */
enum trak__ftrace_kind {
  TRAK__FT_INT,      /* little-endian integer of size 1, 2, 4 or 8 */
  TRAK__FT_CSTR,     /* char name[N]: NUL-padded text */
  TRAK__FT_DATALOC,  /* __data_loc char[] name: u32 (length << 16 | offset) to the text */
  TRAK__FT_TAILSTR,  /* char name[] of size 0 at the end: text to the record's end */
  TRAK__FT_INTARRAY, /* integer array name[N] of size N * elem */
  TRAK__FT_OTHER     /* anything else (skipped) */
};

typedef struct trak__ftrace_field {
  char name[48];
  uint16_t offset, size;
  uint8_t kind;      /* enum trak__ftrace_kind */
  uint8_t is_signed; /* the format's signed:1 */
  uint8_t elem;      /* element size of TRAK__FT_INTARRAY */
  /* Filled by the translation (ftrace_bundle.c): the typed member's field, or 0 */
  uint32_t proto_number;
  uint8_t proto_type; /* enum trak_pb_type of proto_number */
} trak__ftrace_field;

#define TRAK__FTRACE_MAX_FIELDS 32

/* One event's format file: its id and payload fields (the common_* fields excluded, but
** common_pid's and common_flags' offsets kept). */
typedef struct trak__ftrace_format {
  char group[48], name[64];
  uint32_t id;
  uint16_t pid_offset, flags_offset; /* common_pid (4 bytes), common_flags (1 byte) */
  uint32_t nfields;
  trak__ftrace_field fields[TRAK__FTRACE_MAX_FIELDS];
  /* Translation: FtraceEvent's member for this event (0: written as generic) */
  uint32_t proto_event;
  uint8_t compact; /* 1: sched_switch, 2: sched_waking (compact_sched candidates) */
} trak__ftrace_format;

/* Parses an event's format file text [text, text + len). Fields past TRAK__FTRACE_MAX_FIELDS
** are dropped. Returns 0, or TRAK_EFORMAT (no name or ID line, or a field line that does
** not parse) with `err` naming the line. */
int trak__ftrace_format_parse(const char *text, size_t len, trak__ftrace_format *f,
                              trak_error *err) TRAK__HIDDEN;

/* The page layout of events/header_page. */
typedef struct trak__ftrace_page_layout {
  uint16_t ts_offset;     /* u64 page timestamp */
  uint16_t commit_offset; /* commit: data length | flags */
  uint16_t commit_size;   /* 4 or 8 */
  uint16_t data_offset;   /* first record */
  uint32_t page_size;     /* data_offset + data's size */
} trak__ftrace_page_layout;

/* Parses events/header_page. Returns 0 or TRAK_EFORMAT (a field missing or out of order). */
int trak__ftrace_header_parse(const char *text, size_t len, trak__ftrace_page_layout *l,
                              trak_error *err) TRAK__HIDDEN;

/* The layout of every 64-bit little-endian kernel (the fuzzer's and tests' default). */
void trak__ftrace_page_layout_default(trak__ftrace_page_layout *l) TRAK__HIDDEN;

/* ---- pages (ftrace_page.c) ---- */

/* One data record of a page: its timestamp and payload (starting with common_type). */
typedef void (*trak__ftrace_record_fn)(void *user, uint64_t ts, const uint8_t *rec, size_t len);

typedef struct trak__ftrace_page_info {
  uint64_t base_ts; /* the page header's timestamp */
  uint32_t size;    /* bytes of records the header claims */
  int lost_events;  /* the header's missed-events flag */
  uint32_t records; /* data records delivered */
  uint64_t last_ts; /* the last record's timestamp (base_ts when none) */
} trak__ftrace_page_info;

/* Decodes one ring buffer page of `len` bytes (a whole page as read from trace_pipe_raw),
** calling fn for each data record in order. Never reads outside [page, page + len). Returns
** FTRACE_STATUS_OK (1) or the FtraceParseStatus of the first layout error; records before it
** were delivered, the rest of the page is skipped. `info` is filled in both cases. */
int trak__ftrace_page_parse(const trak__ftrace_page_layout *l, const uint8_t *page, size_t len,
                            trak__ftrace_record_fn fn, void *user,
                            trak__ftrace_page_info *info) TRAK__HIDDEN;

/* ---- bundles (ftrace_bundle.c) ---- */

/* The events a reader knows, by id (format files read at setup). */
typedef struct trak__ftrace_table {
  trak__ftrace_format **by_id; /* index: event id; NULL when not enabled */
  uint32_t nids;
  int compact_sched; /* write sched_switch / sched_waking as CompactSched */
  int no_generic;    /* drop events without a typed member */
} trak__ftrace_table;

/* Fills f->proto_event and every field's proto_number / proto_type from the schema
** (FtraceEvent's member named as the event, its fields named as the format's). This function
** can't fail: an event without a member is written as generic. */
void trak__ftrace_format_translate(trak__ftrace_format *f) TRAK__HIDDEN;

/* Adds `f` (owned by the caller, alive as long as the table) under its id. Returns 0 or
** TRAK_ENOMEM. trak__ftrace_table_free frees the index only. */
int trak__ftrace_table_add(trak__ftrace_table *t, trak__ftrace_format *f) TRAK__HIDDEN;
void trak__ftrace_table_free(trak__ftrace_table *t) TRAK__HIDDEN;

/* Receives one finished TracePacket payload (holding ftrace_events). */
typedef void (*trak__ftrace_packet_fn)(void *user, const uint8_t *packet, size_t len);

/* CompactSched's packed columns. */
enum trak__compact_col {
  TRAK__SW_TS,
  TRAK__SW_STATE,
  TRAK__SW_PID,
  TRAK__SW_PRIO,
  TRAK__SW_COMM,
  TRAK__WK_TS,
  TRAK__WK_PID,
  TRAK__WK_CPU,
  TRAK__WK_PRIO,
  TRAK__WK_COMM,
  TRAK__WK_FLAGS,
  TRAK__COMPACT_NCOLS
};

#define TRAK__BUNDLE_MAX 3000 /* bytes of events after which a bundle is closed */
#define TRAK__COMPACT_MAX_COMMS 256

/* Builds one CPU's bundles: events are encoded as they come and a packet is handed to `out`
** when the bundle is full or ended. */
typedef struct trak__ftrace_bundler {
  const trak__ftrace_table *table;
  uint32_t cpu;
  int clock;                            /* FtraceClock of the timestamps (0: boot, not written) */
  trak_pb_buf events;                   /* FtraceEvent fields of the open bundle */
  trak_pb_buf col[TRAK__COMPACT_NCOLS]; /* the compact columns, by enum trak__compact_col */
  uint64_t sw_last, wk_last;            /* the previous timestamp of each column */
  uint32_t ncomms;
  char comms[TRAK__COMPACT_MAX_COMMS][16];
  uint32_t nevents;  /* in the open bundle */
  int lost;          /* the open bundle follows a loss */
  uint64_t prev_end; /* last event time of the previous bundle (0: none) */
  uint64_t last_ts;  /* last event time of the open bundle */
  uint32_t nerrors;
  uint64_t err_ts[8];
  uint8_t err_status[8];
  trak_pb_buf packet; /* scratch for the finished packet */
  trak__ftrace_packet_fn out;
  void *user;
  /* Counters */
  uint64_t events_total, bytes_total, unknown_ids;
} trak__ftrace_bundler;

void trak__ftrace_bundler_init(trak__ftrace_bundler *b, const trak__ftrace_table *t, uint32_t cpu,
                               trak__ftrace_packet_fn out, void *user) TRAK__HIDDEN;
void trak__ftrace_bundler_free(trak__ftrace_bundler *b) TRAK__HIDDEN;
/* Decodes one page into the open bundle (closing full bundles on the way). Returns the
** page's FtraceParseStatus (also recorded in the bundle when not OK). */
int trak__ftrace_bundler_page(trak__ftrace_bundler *b, const trak__ftrace_page_layout *l,
                              const uint8_t *page, size_t len) TRAK__HIDDEN;
/* Closes the open bundle (a packet only when it holds something). */
void trak__ftrace_bundler_flush(trak__ftrace_bundler *b) TRAK__HIDDEN;

#endif /* TRAK_PROBES_FTRACE_H */
