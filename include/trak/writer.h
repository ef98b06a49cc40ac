/*
** The synthetic trace writer: builds a Perfetto protobuf trace from timing data that comes from
** anywhere (a GPU or network timeline, a simulator, a build system, logs) without instrumenting
** a program.
**
** A writer is opened on a file, a file descriptor or a byte callback. Tracks are declared first
** (processes, threads, custom tracks to any depth, counter tracks); events then name a track
** handle and carry explicit timestamps in nanoseconds. The writer does the error-prone parts of
** the format itself: names, categories and argument names are interned, every track descriptor
** is written before the track's first event, sequence flags are set, slices nest, and events
** on the track of the current run omit their track uuid (it is the sequence's default track).
**
** It cannot produce a broken trace. A call that would (a slice ending after its parent, an end
** with no open slice, a timestamp going backwards on a track, an unknown track handle, a counter
** value on a slice track, ...) is refused: it returns a negative TRAK_E* code, nothing is
** written, and trak_writer_last_error() says which call and why. The writer stays usable.
**
** Tracks declared with TRAK_WRITER_AUTO_SIBLINGS accept slices that overlap without nesting (a
** process-scoped async operation): such a slice is placed on a sibling "lane" track that shares
** the name and hangs below the declared track, as the Perfetto guide to synthetic traces does
** by hand. The lane a slice landed on is returned in trak_writer_event.lane; its children and
** its end can be written on that lane handle, where they nest as on any track. (For the first
** lane, which is the declared track itself, trak_writer_event.lane is a second handle of that
** track whose writes are not placed.)
**
** One writer is not thread-safe; use one per thread or lock around it.
*/
#ifndef TRAK_WRITER_H
#define TRAK_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "trak/error.h"
#include "trak/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct trak_writer trak_writer;

/* A track handle: a small positive integer; 0 is never a valid track. */
typedef uint32_t trak_writer_track;

/* An interned event name from trak_writer_intern_name(); 0 means "none". */
typedef uint64_t trak_writer_name;

/* Receives the trace bytes in order. Returns 0, or a negative TRAK_E* code that fails the write
** (and is reported by the call that flushed, at the latest by trak_writer_close). */
typedef int (*trak_writer_sink_fn)(void *user, const void *data, size_t len);

/* Opening. Each returns 0 and sets *out, or a negative code with `err` filled. */
TRAK_API int trak_writer_open_file(trak_writer **out, const char *path, trak_error *err);
/* The fd stays open after close: the caller owns it. */
TRAK_API int trak_writer_open_fd(trak_writer **out, int fd, trak_error *err);
TRAK_API int trak_writer_open_callback(trak_writer **out, trak_writer_sink_fn sink, void *user,
                                       trak_error *err);

/* Identity in the trace. Each writer writes its packets on a packet sequence of its own and
** gives its tracks uuids of its own, both drawn at random when it opens, so the traces of
** different writers can be concatenated (`cat a.pb b.pb`) and read as one. For reproducible
** bytes (tests, traces that are diffed), call one or both of these right after opening, before
** declaring any track:
**   trak_writer_set_seed: the sequence id and the uuids follow from `seed`; the same seed and
**     the same calls give the same bytes (the traces of two writers given the same seed must
**     not be concatenated: their tracks would merge);
**   trak_writer_set_sequence_id: this sequence id (2 or more; 1 is the tracing service's).
** Each returns 0, TRAK_EINVAL for sequence id 0 or 1, or TRAK_ESTATE once a track was
** declared or a packet written. */
TRAK_API int trak_writer_set_seed(trak_writer *w, uint64_t seed);
TRAK_API int trak_writer_set_sequence_id(trak_writer *w, uint32_t sequence_id);

/* What a writer wrote, reported by close. */
typedef struct trak_writer_totals {
  uint64_t packets; /* TracePackets written */
  uint64_t bytes;   /* bytes handed to the sink */
  uint64_t tracks;  /* track descriptors, lanes included */
  uint64_t events;  /* accepted event calls */
  uint64_t slices;  /* slices begun (begin and complete) */
  uint64_t instants;
  uint64_t counter_values;
  uint64_t flows;       /* flow ids attached to events */
  uint64_t interned;    /* distinct interned strings (names, categories, arg names) */
  uint64_t refused;     /* calls refused */
  uint64_t open_slices; /* slices begun and never ended: they stay open in the trace */
} trak_writer_totals;

/* Flushes, closes the sink (the file when the writer opened one) and frees the writer, even on
** error. Fills `totals` if not NULL. Returns 0 or the first sink error (TRAK_EIO, ...). */
TRAK_API int trak_writer_close(trak_writer *w, trak_writer_totals *totals, trak_error *err);

/* Writes buffered bytes to the sink now. Returns 0 or the sink's error. */
TRAK_API int trak_writer_flush(trak_writer *w);

/* The error of the most recent failed call (code 0 and "" if none failed yet). */
TRAK_API const trak_error *trak_writer_last_error(const trak_writer *w);

/* ---- Tracks ---------------------------------------------------------------------------- */

typedef enum trak_writer_ordering {
  TRAK_WRITER_ORDER_DEFAULT = 0,       /* no child_ordering field */
  TRAK_WRITER_ORDER_LEXICOGRAPHIC = 1, /* children sorted by name */
  TRAK_WRITER_ORDER_CHRONOLOGICAL = 2, /* children sorted by their first event */
  TRAK_WRITER_ORDER_EXPLICIT = 3       /* children sorted by sibling rank */
} trak_writer_ordering;

enum {
  TRAK_WRITER_SIBLING_RANK = 1u << 0, /* write sibling_rank (else the field is absent) */
  TRAK_WRITER_AUTO_SIBLINGS = 1u << 1 /* place overlapping, non-nesting slices on lanes */
};

/* How a track is declared. Zero-initialise and set what you need. */
typedef struct trak_writer_track_info {
  trak_writer_track parent;            /* 0 for a top-level track */
  const char *name;                    /* the track's name; optional for processes and threads */
  trak_writer_ordering child_ordering; /* how this track's children are ordered */
  int32_t sibling_rank;                /* with TRAK_WRITER_SIBLING_RANK, for an EXPLICIT parent */
  unsigned flags;                      /* TRAK_WRITER_SIBLING_RANK, TRAK_WRITER_AUTO_SIBLINGS */
} trak_writer_track_info;

/* Declare tracks. Each writes the descriptor at once (so always before the first event), sets
** *out and returns 0; or refuses with TRAK_EINVAL (unknown parent, parent is a counter track,
** bad ordering value, a counter track without a name) and writes nothing. `info` may be NULL
** for processes and threads. */
TRAK_API int trak_writer_add_process(trak_writer *w, int32_t pid, const char *process_name,
                                     const trak_writer_track_info *info, trak_writer_track *out);
TRAK_API int trak_writer_add_thread(trak_writer *w, int32_t pid, int64_t tid,
                                    const char *thread_name, const trak_writer_track_info *info,
                                    trak_writer_track *out);
/* A custom track (info->name may be NULL for an unnamed one). */
TRAK_API int trak_writer_add_track(trak_writer *w, const trak_writer_track_info *info,
                                   trak_writer_track *out);

typedef enum trak_writer_unit {
  TRAK_WRITER_UNIT_UNSPECIFIED = 0,
  TRAK_WRITER_UNIT_TIME_NS = 1,
  TRAK_WRITER_UNIT_COUNT = 2,
  TRAK_WRITER_UNIT_SIZE_BYTES = 3
} trak_writer_unit;

/* A counter track: info->name is required; `unit_name` (may be NULL) is a free-form unit such
** as "MHz". Only counter values can be written on it. AUTO_SIBLINGS is refused. */
TRAK_API int trak_writer_add_counter_track(trak_writer *w, const trak_writer_track_info *info,
                                           trak_writer_unit unit, const char *unit_name,
                                           trak_writer_track *out);

/* ---- Arguments ------------------------------------------------------------------------- */

typedef enum trak_writer_arg_type {
  TRAK_WRITER_ARG_BOOL,
  TRAK_WRITER_ARG_INT,
  TRAK_WRITER_ARG_UINT,
  TRAK_WRITER_ARG_DOUBLE,
  TRAK_WRITER_ARG_STRING,
  TRAK_WRITER_ARG_POINTER,
  TRAK_WRITER_ARG_DICT, /* value.items holds named entries */
  TRAK_WRITER_ARG_ARRAY /* value.items holds unnamed elements */
} trak_writer_arg_type;

/* One typed argument. `name` is required at the top level and in dicts, ignored in arrays. */
typedef struct trak_writer_arg {
  const char *name;
  trak_writer_arg_type type;
  union {
    int b;
    int64_t i;
    uint64_t u;
    double d;
    const char *s;
    uint64_t pointer;
    struct {
      const struct trak_writer_arg *items;
      size_t count;
    } nested;
  } value;
} trak_writer_arg;

#define TRAK_WRITER_ARG_MAX_DEPTH 16 /* dicts and arrays nest at most this deep */

/* Initialisers for argument arrays:
**   trak_writer_arg a[] = {TRAK_WRITER_ARG_I("bytes", 4096), TRAK_WRITER_ARG_S("k", "v")}; */
// clang-format off
#define TRAK_WRITER_ARG_B(n, v) {(n), TRAK_WRITER_ARG_BOOL, {.b = (v)}}
#define TRAK_WRITER_ARG_I(n, v) {(n), TRAK_WRITER_ARG_INT, {.i = (v)}}
#define TRAK_WRITER_ARG_U(n, v) {(n), TRAK_WRITER_ARG_UINT, {.u = (v)}}
#define TRAK_WRITER_ARG_D(n, v) {(n), TRAK_WRITER_ARG_DOUBLE, {.d = (v)}}
#define TRAK_WRITER_ARG_S(n, v) {(n), TRAK_WRITER_ARG_STRING, {.s = (v)}}
#define TRAK_WRITER_ARG_P(n, v) {(n), TRAK_WRITER_ARG_POINTER, {.pointer = (v)}}
#define TRAK_WRITER_ARG_DICT_OF(n, items, count) {(n), TRAK_WRITER_ARG_DICT, {.nested = {(items), (count)}}}
#define TRAK_WRITER_ARG_ARRAY_OF(n, items, count) {(n), TRAK_WRITER_ARG_ARRAY, {.nested = {(items), (count)}}}
// clang-format on

/* ---- Events ---------------------------------------------------------------------------- */

typedef enum trak_writer_event_type {
  TRAK_WRITER_BEGIN = 1,     /* opens a slice at ts */
  TRAK_WRITER_END,           /* closes the innermost open slice at ts */
  TRAK_WRITER_COMPLETE,      /* a slice [ts, ts + dur) */
  TRAK_WRITER_INSTANT,       /* a zero-duration slice */
  TRAK_WRITER_COUNTER_INT,   /* int_value on a counter track */
  TRAK_WRITER_COUNTER_DOUBLE /* double_value on a counter track */
} trak_writer_event_type;

/* One event. Zero-initialise and set what you need. */
typedef struct trak_writer_event {
  trak_writer_event_type type;
  trak_writer_track track;
  uint64_t ts;                 /* nanoseconds, on the trace clock (BOOTTIME by default) */
  uint64_t dur;                /* COMPLETE: duration in nanoseconds */
  const char *name;            /* slice name; or set name_id instead */
  trak_writer_name name_id;    /* from trak_writer_intern_name(): no hashing per event */
  const char *category;        /* optional */
  int64_t int_value;           /* COUNTER_INT */
  double double_value;         /* COUNTER_DOUBLE */
  const trak_writer_arg *args; /* typed arguments (BEGIN, COMPLETE, INSTANT) */
  size_t n_args;
  const uint64_t *flow_ids; /* flows continuing through this slice */
  size_t n_flow_ids;
  const uint64_t *terminating_flow_ids; /* flows ending at this slice */
  size_t n_terminating_flow_ids;
  trak_writer_track lane; /* out: the track the event was written on */
} trak_writer_event;

/* Writes one event. Returns 0, or refuses with TRAK_EINVAL (unknown track, wrong kind of track,
** missing name, bad argument) or TRAK_ESTATE (timestamp before the track's previous event, end
** with no open slice, a slice ending after its parent) and writes nothing; the reason is in
** trak_writer_last_error(). TRAK_EIO / TRAK_ENOMEM report a failing sink or allocation.
**
** Nesting on a track: a COMPLETE slice stays open until an event at or after its end; a later
** slice inside it is its child. An END closes the innermost open BEGIN and is refused while a
** COMPLETE child of that slice would still be running. On an AUTO_SIBLINGS track a BEGIN goes
** to the first lane with no open slice, a COMPLETE to the first lane where it nests or that is
** idle, creating a lane when none fits; an END names the slice it closes by `name` (else the
** most recently begun one) among the lanes' innermost open slices. */
TRAK_API int trak_writer_write(trak_writer *w, trak_writer_event *ev);

/* Shorthands for trak_writer_write() without arguments, flows or category. */
TRAK_API int trak_writer_begin(trak_writer *w, trak_writer_track track, uint64_t ts,
                               const char *name);
TRAK_API int trak_writer_end(trak_writer *w, trak_writer_track track, uint64_t ts);
TRAK_API int trak_writer_complete(trak_writer *w, trak_writer_track track, uint64_t ts,
                                  uint64_t dur, const char *name);
TRAK_API int trak_writer_instant(trak_writer *w, trak_writer_track track, uint64_t ts,
                                 const char *name);
TRAK_API int trak_writer_counter(trak_writer *w, trak_writer_track track, uint64_t ts,
                                 int64_t value);
TRAK_API int trak_writer_counter_double(trak_writer *w, trak_writer_track track, uint64_t ts,
                                        double value);

/* Interns an event name once so that events can refer to it by trak_writer_event.name_id.
** Returns the id (never 0), or 0 when `name` is NULL or memory runs out. The definition is
** written with the next packet. */
TRAK_API trak_writer_name trak_writer_intern_name(trak_writer *w, const char *name);

/* ---- Tabular events (CSV and JSON Lines) ---------------------------------------------- */

typedef enum trak_events_format {
  TRAK_EVENTS_AUTO = 0, /* decide from the content */
  TRAK_EVENTS_CSV,
  TRAK_EVENTS_JSONL
} trak_events_format;

/* Guesses the format of tabular event text: JSONL if the first line is a JSON object naming a
** "track", CSV if it is a header naming a timestamp column, else AUTO (not tabular events).
** Blank lines and '#' comment lines before it are skipped. */
TRAK_API trak_events_format trak_events_detect(const char *text, size_t len);

/* The format a file name implies (.csv, .jsonl, .ndjson), else AUTO. */
TRAK_API trak_events_format trak_events_format_from_name(const char *path);

/* Reports one bad row during conversion: `message` reads "line N: ...". */
typedef void (*trak_events_diag_fn)(void *user, const char *message);

typedef struct trak_events_options {
  trak_events_format format; /* AUTO: trak_events_detect() */
  int keep_going;            /* convert the rest after a bad row (reported through diag) */
  trak_events_diag_fn diag;  /* may be NULL */
  void *diag_user;
  const char *source_name; /* prefixes messages ("events.csv: line 12: ..."); may be NULL */
} trak_events_options;

typedef struct trak_events_result {
  uint64_t rows;      /* data rows read */
  uint64_t converted; /* rows written as events */
  uint64_t bad_rows;  /* rows refused (with keep_going) */
} trak_events_result;

/* Converts tabular events (see docs/writer.md) into `w`. Returns 0 when every row converted,
** or with keep_going when at least the bad rows were reported and skipped; otherwise the first
** bad row's error (TRAK_EFORMAT or the writer's refusal) with "line N: why" in `err`. */
TRAK_API int trak_events_convert(trak_writer *w, const char *text, size_t len,
                                 const trak_events_options *opts, trak_events_result *result,
                                 trak_error *err);

/* Supplies input to trak_events_convert_stream(): reads up to `cap` bytes into `buf` and
** returns how many, 0 at the end of the input, or a negative TRAK_E* code (optionally filling
** `err`, else the conversion reports a read failure). */
typedef int64_t (*trak_events_read_fn)(void *user, void *buf, size_t cap, trak_error *err);

/* trak_events_convert() on input read piece by piece: rows are converted as they arrive, so
** memory stays bounded by the longest row (at most 64 MiB) however long the input is. With
** TRAK_EVENTS_AUTO the format is detected from the first 64 KiB. Returns and reports as
** trak_events_convert(), and TRAK_EIO when `read` fails. */
TRAK_API int trak_events_convert_stream(trak_writer *w, trak_events_read_fn read, void *user,
                                        const trak_events_options *opts, trak_events_result *result,
                                        trak_error *err);

#ifdef __cplusplus
}
#endif
#endif /* TRAK_WRITER_H */
