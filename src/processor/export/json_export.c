/*
** This file holds the JSON exporter: the tables of a finished processor written as JSON Object
** Format, so that re-importing the file gives the same slices, counters and flows:
**   - process and thread names as M events, and their args from JSON M events (sort indexes,
**     labels) as the M events they came from;
**   - slices of each thread's first thread track as X (B when unterminated), with v1 flow
**     events (s, f with bp "e") right after the slice they bind to;
**   - slices of every other track (process, global and nested custom tracks) as nestable async
**     b/e (n for zero duration) with the track id as id2.local (process) or id2.global;
**   - counter values as C events, one series "value" per counter track;
**   - each slice's arg set as "args", keys without their first segment ("debug.", "args.");
**   - the ftrace_event rows as systrace text in "systemTraceEvents" (json_systrace.c); then the
**     slices and counters that text makes again on import (atrace slices and counters, CPU
**     frequency, idle and frequency limits) are not written as events too.
** Timestamps are printed from integer nanoseconds as exact decimal microseconds.
*/
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "processor/export/json_export.h"
#include "processor/export/json_systrace.h"
#include "util/kernel_marker.h"
#include "util/utf8.h"
#include "util/wrapping.h"
#include "processor/processor_internal.h"
#include "processor/tables/arg_value.h"
#include "processor/tables/sched_cols.h"
#include "processor/tables/thread_state_cols.h"

typedef TRAK_VEC(int64_t) ts_vec;

typedef struct out {
  FILE *f;
  const trak_tables *t;
  int first;                     /* no event written yet: no comma before the next */
  const uint8_t *is_thread_main; /* track id -> written as X slices */
  uint64_t dropped;              /* flows JSON cannot bind */
  uint32_t *bind;                /* slice -> v2 flow id (bind_id), 0: none */
  uint8_t *bind_dir;             /* slice -> 1 flow_in, 2 flow_out, 3 both */
  uint8_t *flow_v2;              /* flow -> expressed with bind_id */
  uint8_t *from_text; /* track id -> its slices or counters come from the systrace text */
  ts_vec text_ts;      /* sorted times of the ftrace events (the systrace text's) */
} out;

/* The JSON string of [s, s + len), quotes included (see put_str). */
static void put_str_len(FILE *f, const char *s, size_t len) {
  fputc('"', f);
  while (len) {
    size_t ok = trak__utf8_valid_prefix(s, len);
    for (size_t i = 0; i < ok; i++) {
      unsigned char ch = (unsigned char)s[i];
      if (ch == '"' || ch == '\\')
        fputc('\\', f), fputc(ch, f);
      else if (ch == '\n')
        fputs("\\n", f);
      else if (ch < 0x20)
        fprintf(f, "\\u%04x", ch);
      else
        fputc(ch, f);
    }
    s += ok, len -= ok;
    if (len) fputs("\\ufffd", f), s++, len--;
  }
  fputc('"', f);
}

static void put_ts(FILE *f, int64_t ns) {
  uint64_t mag = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
  if (ns < 0) fputc('-', f);
  fprintf(f, "%" PRIu64, mag / 1000);
  unsigned frac = (unsigned)(mag % 1000);
  if (!frac) return;
  char digits[5];
  snprintf(digits, sizeof digits, ".%03u", frac);
  size_t n = strlen(digits);
  while (digits[n - 1] == '0')
    digits[--n] = 0;
  fputs(digits, f);
}

/* A JSON string: each byte that is not part of well-formed UTF-8 (protobuf strings may hold
** any bytes) is written as U+FFFD, so the output is valid JSON for every reader. */
static void put_str(FILE *f, const char *s) {
  put_str_len(f, s, strlen(s));
}

static void begin_event(out *o, char ph) {
  fputs(o->first ? "\n" : ",\n", o->f);
  o->first = 0;
  fprintf(o->f, "{\"ph\":\"%c\"", ph);
}

static void put_key_str(out *o, const char *key, uint32_t str) {
  if (!str) return;
  fprintf(o->f, ",\"%s\":", key);
  put_str(o->f, trak__str(&o->t->strings, str));
}

/* One arg row's value as JSON. */
static void put_arg_value(out *o, uint32_t row) {
  const trak_tables *t = o->t;
  FILE *f = o->f;
  switch ((trak_arg_type)t->args.value_type[row]) {
  case TRAK_ARG_INT:
    fprintf(f, "%" PRId64, trak__arg_int(t, row));
    break;
  case TRAK_ARG_UINT:
    fprintf(f, "%" PRIu64, (uint64_t)trak__arg_int(t, row));
    break;
  case TRAK_ARG_BOOL:
    fputs(trak__arg_int(t, row) ? "true" : "false", f);
    break;
  case TRAK_ARG_POINTER:
    fprintf(f, "\"0x%" PRIx64 "\"", (uint64_t)trak__arg_int(t, row));
    break;
  case TRAK_ARG_REAL:
    if (isfinite(trak__arg_real(t, row))) {
      /* With a point, so that it reads back as a real, not an integer. */
      char num[40];
      snprintf(num, sizeof num, "%.17g", trak__arg_real(t, row));
      fprintf(f, "%s%s", num, strpbrk(num, ".eE") ? "" : ".0");
    } else
      fputs("null", f);
    break;
  case TRAK_ARG_STRING:
  case TRAK_ARG_JSON:
    put_str(f, trak__arg_str(t, row) ? trak__str(&t->strings, trak__arg_str(t, row)) : "");
    break;
  default:
    fputs("null", f);
    break;
  }
}

/* "args": the rows of one arg set, keys after their first segment. */
static void put_args(out *o, uint32_t set) {
  const trak_tables *t = o->t;
  if (set == TRAK_NULL_U32 || set >= t->args.n) return;
  fputs(",\"args\":{", o->f);
  for (uint32_t row = set; row < t->args.n && t->args.arg_set_id[row] == set; row++) {
    const char *key = trak__str(&t->strings, t->args.key[row]);
    const char *dot = strchr(key, '.');
    if (row != set) fputc(',', o->f);
    put_str(o->f, dot ? dot + 1 : key);
    fputc(':', o->f);
    put_arg_value(o, row);
  }
  fputc('}', o->f);
}

typedef struct scope {
  int64_t pid, tid;
} scope;

static scope thread_scope(const trak_tables *t, uint32_t utid) {
  scope s = {0, t->thread.tid[utid]};
  uint32_t upid = t->thread.upid[utid];
  if (upid != TRAK_NULL_U32) s.pid = t->process.pid[upid];
  return s;
}

static scope track_scope(const trak_tables *t, uint32_t track) {
  scope s = {0, 0};
  if (t->track.utid[track] != TRAK_NULL_U32) return thread_scope(t, t->track.utid[track]);
  if (t->track.upid[track] != TRAK_NULL_U32) s.pid = s.tid = t->process.pid[t->track.upid[track]];
  return s;
}

static void put_scope(out *o, scope s) {
  fprintf(o->f, ",\"pid\":%" PRId64 ",\"tid\":%" PRId64, s.pid, s.tid);
}

/* Opens an M event named `name` for a process (thread NULL) or a thread, up to its args. */
static void begin_metadata(out *o, const char *name, int64_t pid, const scope *thread) {
  begin_event(o, 'M');
  fprintf(o->f, ",\"name\":\"%s\"", name);
  if (thread)
    put_scope(o, *thread);
  else
    fprintf(o->f, ",\"pid\":%" PRId64, pid);
  fputs(",\"args\":{", o->f);
}

/* The M events that give a process's or thread's args back as the JSON importer keyed them
** (json_events.c): its sort index hint as process_sort_index / thread_sort_index, its
** chrome.process_label[i] strings joined with commas as process_labels. */
static void metadata_args(out *o, uint32_t set, int64_t pid, const scope *thread) {
  const trak_tables *t = o->t;
  if (set == TRAK_NULL_U32) return;
  const char *hint = thread ? "thread_sort_index_hint" : "process_sort_index_hint";
  char *labels = NULL;
  size_t len = 0;
  FILE *lf = NULL;
  for (uint32_t row = set; row < t->args.n && t->args.arg_set_id[row] == set; row++) {
    const char *key = trak__str(&t->strings, t->args.key[row]);
    const char *flat = trak__str(&t->strings, t->args.flat_key[row]);
    uint8_t type = t->args.value_type[row];
    if (!strcmp(key, hint) && type == TRAK_ARG_INT) {
      begin_metadata(o, thread ? "thread_sort_index" : "process_sort_index", pid, thread);
      fprintf(o->f, "\"sort_index\":%" PRId64 "}}", trak__arg_int(t, row));
    } else if (!thread && !strcmp(flat, "chrome.process_label") && type == TRAK_ARG_STRING &&
               (lf || (lf = open_memstream(&labels, &len)))) {
      if (ftell(lf)) fputc(',', lf);
      fputs(trak__str(&t->strings, trak__arg_str(t, row)), lf);
    }
  }
  if (!lf) return;
  fclose(lf);
  begin_metadata(o, "process_labels", pid, NULL);
  fputs("\"labels\":", o->f);
  put_str(o->f, labels);
  fputs("}}", o->f);
  free(labels);
}

static void metadata(out *o) {
  const trak_tables *t = o->t;
  for (uint32_t upid = 0; upid < t->process.n; upid++) {
    metadata_args(o, t->process.arg_set_id[upid], t->process.pid[upid], NULL);
    if (!t->process.name[upid]) continue;
    begin_event(o, 'M');
    fprintf(o->f, ",\"name\":\"process_name\",\"pid\":%" PRId64 ",\"args\":{\"name\":",
            t->process.pid[upid]);
    put_str(o->f, trak__str(&t->strings, t->process.name[upid]));
    fputs("}}", o->f);
  }
  for (uint32_t utid = 0; utid < t->thread.n; utid++) {
    scope s = thread_scope(t, utid);
    metadata_args(o, t->thread.arg_set_id[utid], s.pid, &s);
    if (!t->thread.name[utid]) continue;
    begin_event(o, 'M');
    fputs(",\"name\":\"thread_name\"", o->f);
    put_scope(o, thread_scope(t, utid));
    fputs(",\"args\":{\"name\":", o->f);
    put_str(o->f, trak__str(&t->strings, t->thread.name[utid]));
    fputs("}}", o->f);
  }
}

/* v1 flows bind to thread slices only, and a zero-length slice closes before a flow event
** can bind to it. */
static int v1_expressible(const out *o, uint32_t flow) {
  const trak_tables *t = o->t;
  uint32_t a = t->flow.slice_out[flow], b = t->flow.slice_in[flow];
  return t->slice.dur[a] != 0 && t->slice.dur[b] != 0 && o->is_thread_main[t->slice.track_id[a]] &&
         o->is_thread_main[t->slice.track_id[b]];
}

/* The v1 flow events that bind to `slice` (just written, so it encloses them). */
static void slice_flows(out *o, trak_processor *p, uint32_t slice, scope s, int64_t ts) {
  const trak_csr *sides[2] = {&p->flows_out, &p->flows_in};
  for (int side = 0; side < 2; side++) {
    for (uint32_t k = sides[side]->off[slice]; k < sides[side]->off[slice + 1]; k++) {
      uint32_t flow = sides[side]->ids[k];
      if (o->flow_v2[flow]) continue;
      if (!v1_expressible(o, flow)) continue;
      begin_event(o, side ? 'f' : 's');
      fprintf(o->f, ",\"name\":\"flow\",\"cat\":\"flow\",\"id\":%u%s,\"ts\":", flow + 1,
              side ? ",\"bp\":\"e\"" : "");
      put_ts(o->f, ts);
      put_scope(o, s);
      fputc('}', o->f);
    }
  }
}

/* Flows as v2 chains (bind_id on the slice events: flow_out continues a flow from a slice,
** flow_in ends it there): a slice carries one bind_id, so a flow fits when its source has no
** other outgoing v2 flow and its target no other v2 binding. The others go out as v1 events. */
static void assign_v2_flows(out *o) {
  const trak_tables *t = o->t;
  /* A reader (trak or Perfetto) numbers v1 flows 0, 1, ... in the space bind_ids live in:
  ** bind_ids start past every number the v1 flows written below can get. */
  uint32_t next_id = (uint32_t)t->flow.n + 1;
  for (uint32_t f = 0; f < t->flow.n; f++) {
    uint32_t a = t->flow.slice_out[f], b = t->flow.slice_in[f];
    if (a >= t->slice.n || b >= t->slice.n || a == b) continue;
    if ((o->bind_dir[a] & 2) || o->bind[b]) continue;
    uint32_t id = o->bind[a] ? o->bind[a] : next_id++;
    o->bind[a] = o->bind[b] = id;
    o->bind_dir[a] |= 2;
    o->bind_dir[b] |= 1;
    o->flow_v2[f] = 1;
  }
}

static void put_bind(out *o, uint32_t slice) {
  if (!o->bind[slice]) return;
  fprintf(o->f, ",\"bind_id\":\"0x%x\"%s%s", o->bind[slice],
          o->bind_dir[slice] & 1 ? ",\"flow_in\":true" : "",
          o->bind_dir[slice] & 2 ? ",\"flow_out\":true" : "");
}

static void common_fields(out *o, uint32_t slice) {
  put_key_str(o, "name", o->t->slice.name[slice]);
  put_key_str(o, "cat", o->t->slice.category[slice]);
  fputs(",\"ts\":", o->f);
  put_ts(o->f, o->t->slice.ts[slice]);
}

/* Whether a thread time of `ns` can be written as JSON microseconds that read back: the JSON
** reader (trak__json_ts_ns, as Perfetto's) takes values within +-9.2e18 ns, so a saturated
** thread time (INT64_MAX) is left out rather than written as a value that fails to read. */
static int thread_time_writable(int64_t ns) {
  return ns != INT64_MIN && ns > -9200000000000000000LL && ns < 9200000000000000000LL;
}

static void thread_slice(out *o, trak_processor *p, uint32_t slice) {
  const trak_tables *t = o->t;
  int64_t dur = t->slice.dur[slice];
  scope s = track_scope(t, t->slice.track_id[slice]);
  begin_event(o, dur < 0 ? 'B' : 'X');
  common_fields(o, slice);
  if (dur >= 0) {
    fputs(",\"dur\":", o->f);
    put_ts(o->f, dur);
  }
  if (t->slice.thread_ts && dur >= 0) { /* thread time of an X: tts and tdur */
    if (thread_time_writable(t->slice.thread_ts[slice])) {
      fputs(",\"tts\":", o->f);
      put_ts(o->f, t->slice.thread_ts[slice]);
    }
    if (thread_time_writable(t->slice.thread_dur[slice])) {
      fputs(",\"tdur\":", o->f);
      put_ts(o->f, t->slice.thread_dur[slice]);
    }
  }
  put_scope(o, s);
  put_bind(o, slice);
  put_args(o, t->slice.arg_set_id[slice]);
  fputc('}', o->f);
  slice_flows(o, p, slice, s, t->slice.ts[slice]);
}

/* An async event of an exported track: b, e or n, with the track as its id. */
static void async_event(out *o, uint32_t slice, char ph) {
  const trak_tables *t = o->t;
  uint32_t track = t->slice.track_id[slice];
  begin_event(o, ph);
  put_key_str(o, "name", t->slice.name[slice]);
  put_key_str(o, "cat", t->slice.category[slice]);
  fputs(",\"ts\":", o->f);
  put_ts(o->f,
         ph == 'e' ? trak__wadd(t->slice.ts[slice], t->slice.dur[slice]) : t->slice.ts[slice]);
  int local = t->track.upid[track] != TRAK_NULL_U32;
  fprintf(o->f, ",\"id2\":{\"%s\":\"0x%x\"}", local ? "local" : "global", track + 1);
  put_scope(o, track_scope(t, track));
  if (ph != 'e') put_bind(o, slice);
  if (ph != 'e') put_args(o, t->slice.arg_set_id[slice]);
  fputc('}', o->f);
}

/* A slice the systrace text makes again on import: an atrace slice (no category). */
static int skipped_slice(const out *o, uint32_t slice) {
  return o->from_text[o->t->slice.track_id[slice]] && !o->t->slice.category[slice];
}

/* Async edges sort by time; at one time ends come first (inner ones first), then begins in
** table order (outer first), so that re-import nests them as they were. */
typedef struct edge {
  int64_t ts;
  uint32_t is_begin, key, slice;
} edge;

static int edge_cmp(const void *pa, const void *pb) {
  const edge *a = pa, *b = pb;
  if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
  if (a->is_begin != b->is_begin) return a->is_begin ? 1 : -1;
  return a->key < b->key ? -1 : a->key > b->key;
}

static void async_slices(out *o) {
  const trak_tables *t = o->t;
  edge *edges = malloc((2 * t->slice.n + 1) * sizeof *edges);
  if (!edges) abort();
  size_t n = 0;
  for (uint32_t i = 0; i < t->slice.n; i++) {
    if (o->is_thread_main[t->slice.track_id[i]] || skipped_slice(o, i)) continue;
    edges[n++] = (edge){t->slice.ts[i], 1, i, i};
    if (t->slice.dur[i] > 0)
      edges[n++] =
          (edge){trak__wadd(t->slice.ts[i], t->slice.dur[i]), 0, UINT32_MAX - t->slice.depth[i], i};
  }
  qsort(edges, n, sizeof *edges, edge_cmp);
  for (size_t i = 0; i < n; i++) {
    uint32_t s = edges[i].slice;
    async_event(o, s, !edges[i].is_begin ? 'e' : t->slice.dur[s] == 0 ? 'n' : 'b');
  }
  free(edges);
}

static int has_event(const trak_tables *t, const char *const *names) {
  uint32_t ids[8] = {0};
  size_t n = 0;
  for (; names[n] && n < 8; n++)
    ids[n] = trak__strpool_find(&t->strings, names[n], strlen(names[n]));
  for (uint32_t i = 0; i < t->ftrace_event.n; i++)
    for (size_t k = 0; k < n; k++)
      if (ids[k] && trak__fe_name(t, i) == ids[k]) return 1;
  return 0;
}

static int ts_cmp(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Whether counter row `row` comes back from the systrace text: its track is one the text
** makes (mark_text_tracks) and an ftrace event, which the text holds, has its time. A value of that track from another
** source (an android_system_property packet on battery_stats.*, an InitialDisplayState on
** ScreenState) is written as a JSON counter. */
static int counter_from_text(const out *o, uint32_t row) {
  const trak_tables *t = o->t;
  if (!o->from_text[t->counter.track_id[row]]) return 0;
  int64_t ts = t->counter.ts[row];
  return bsearch(&ts, o->text_ts.v, o->text_ts.n, sizeof ts, ts_cmp) != NULL;
}

static void counters(out *o) {
  const trak_tables *t = o->t;
  for (uint32_t i = 0; i < t->counter.n; i++) {
    uint32_t track = t->counter.track_id[i];
    if (counter_from_text(o, i)) continue;
    begin_event(o, 'C');
    uint32_t name = t->track.name[track];
    if (name) {
      fputs(",\"name\":", o->f);
      put_str(o->f, trak__str(&t->strings, name));
    } else {
      fprintf(o->f, ",\"name\":\"counter %u\"", track);
    }
    fputs(",\"ts\":", o->f);
    put_ts(o->f, t->counter.ts[i]);
    scope s = track_scope(t, track);
    fprintf(o->f, ",\"pid\":%" PRId64 ",\"args\":{\"value\":", s.pid);
    double v = t->counter.value[i];
    if (isfinite(v))
      fprintf(o->f, "%.17g", v);
    else
      fputs("0", o->f);
    fputs("}}", o->f);
  }
}

/* Whether the ftrace_event table has a row named one of `names` (NULL-terminated). */

/* The CPU number of thread-state row `row`: its ucpu's, else (a JSON trace's states have none)
** that of the sched row of its thread beginning with it; -1 when neither. */
static int64_t state_cpu(const trak_tables *t, uint32_t row) {
  uint32_t ucpu = trak__ts_ucpu(t, row);
  if (ucpu == TRAK_NULL_U32) {
    int64_t ts = t->thread_state.ts[row];
    uint32_t lo = 0, hi = (uint32_t)t->sched_slice.n; /* the first sched row at ts or later */
    while (lo < hi) {
      uint32_t mid = lo + (hi - lo) / 2;
      if (t->sched_slice.ts[mid] < ts) lo = mid + 1;
      else hi = mid;
    }
    for (; lo < t->sched_slice.n && t->sched_slice.ts[lo] == ts && ucpu == TRAK_NULL_U32; lo++)
      if (t->sched_slice.utid[lo] == t->thread_state.utid[row]) ucpu = trak__ss_ucpu(t, lo);
  }
  if (ucpu >= t->cpu.n || t->cpu.cpu[ucpu] == TRAK_NULL_U32) return -1;
  return t->cpu.cpu[ucpu];
}

/* The thread states as T events (each whole: state, start, duration, the CPU of a Running one,
** io_wait and blocked_function), which re-import as the same thread_state rows and, for
** Running ones, sched rows: unless the ftrace events' systrace text makes them again (the
** trace has scheduling events), for states from a generic kernel's events or a JSON trace. */
static void thread_states(out *o) {
  static const char *const sched[] = {"sched_switch", "sched_waking", "sched_wakeup",
                                      "sched_wakeup_new", "task_newtask", NULL};
  const trak_tables *t = o->t;
  if (!t->thread_state.n || has_event(t, sched)) return;
  uint32_t running = trak__strpool_find(&t->strings, "Running", 7);
  for (uint32_t i = 0; i < t->thread_state.n; i++) {
    begin_event(o, 'T');
    fputs(",\"cat\":\"thread_state\"", o->f);
    put_key_str(o, "name", trak__ts_state(t, i));
    fputs(",\"ts\":", o->f);
    put_ts(o->f, t->thread_state.ts[i]);
    fputs(",\"dur\":", o->f);
    put_ts(o->f, trak__ts_dur(t, i));
    put_scope(o, thread_scope(t, t->thread_state.utid[i]));
    uint32_t blocked = trak__ts_blocked_function(t, i);
    uint8_t io_wait = trak__ts_io_wait(t, i);
    int64_t cpu = trak__ts_state(t, i) == running ? state_cpu(t, i) : -1;
    char sep = '{';
    fputs(",\"args\":", o->f);
    if (cpu >= 0) fprintf(o->f, "%c\"cpu\":%" PRId64, sep, cpu), sep = ',';
    if (io_wait != 2) fprintf(o->f, "%c\"io_wait\":%u", sep, io_wait), sep = ',';
    if (blocked) {
      fprintf(o->f, "%c\"blocked_function\":", sep), sep = ',';
      put_str(o->f, trak__str(&t->strings, blocked));
    }
    fputs(sep == '{' ? "{}}" : "}}", o->f);
  }
}

/* Marks the tracks whose slices or counters the systrace text of the ftrace events makes again
** on import (systrace/events.c reads markers, the kernel's atrace-style events written as
** markers, cpu_frequency, cpu_frequency_limits, cpu_idle, thermal_temperature, cdev_update,
** rss_stat and the clock_* lines of systrace text): writing them as JSON events as well would
** make them twice. Keeps the ftrace events' times (text_ts) to tell a counter of such a track
** that came from elsewhere (a process_stats poll's mem.rss). */
static void mark_text_tracks(out *o) {
  const trak_tables *t = o->t;
  /* print and the kernel's atrace-style kinds (mdss's tracing_mark_write among them) */
  const char *markers[TRAK_KMARK_KINDS + 2] = {"print"};
  for (int k = 0; k < TRAK_KMARK_KINDS; k++)
    markers[k + 1] = trak__kernel_marker_kinds[k].event;
  static const char *const freq[] = {"cpu_frequency", NULL};
  static const char *const idle[] = {"cpu_idle", NULL};
  static const char *const limits[] = {"cpu_frequency_limits", NULL};
  static const char *const thermal[] = {"thermal_temperature", NULL};
  static const char *const cdev[] = {"cdev_update", NULL};
  static const char *const clock_rate[] = {"clock_set_rate", NULL};
  static const char *const clock_state[] = {"clock_enable", "clock_disable", NULL};
  static const char *const rss[] = {"rss_stat", NULL};
  const struct {
    const char *const *events;
    const char *types[6];
  } rules[] = {
      {markers,
       {"thread_execution", "atrace_counter", "atrace_async_slice", "atrace_async_slice_for_track",
        "android_device_state", "screen_state"}},
      {markers, {"battery_stats"}},
      {freq, {"cpu_frequency"}},
      {idle, {"cpu_idle"}},
      {limits, {"cpu_max_frequency_limit", "cpu_min_frequency_limit"}},
      {thermal, {"thermal_temperature"}},
      {cdev, {"cooling_device_counter"}},
      {clock_rate, {"clock_frequency"}},
      {clock_state, {"clock_state"}},
      {rss, {"process_memory"}},
  };
  int any = 0; /* a track was marked: the events' times are needed */
  for (size_t r = 0; r < sizeof rules / sizeof rules[0]; r++) {
    if (!has_event(t, rules[r].events)) continue;
    for (size_t k = 0; k < 6 && rules[r].types[k]; k++) {
      uint32_t type = trak__strpool_find(&t->strings, rules[r].types[k], strlen(rules[r].types[k]));
      for (uint32_t i = 0; type && i < t->track.n; i++)
        if (t->track.type[i] == type) o->from_text[i] = 1, any = 1;
    }
  }
  for (uint32_t i = 0; any && i < t->ftrace_event.n; i++)
    trak_vec_push(o->text_ts, t->ftrace_event.ts[i]);
  if (o->text_ts.n) qsort(o->text_ts.v, o->text_ts.n, sizeof *o->text_ts.v, ts_cmp);
}

/* Where the import's crop of kernel data starts (crop.c: the metadata tracing_started_ns and
** ftrace_latest_data_start_ns); INT64_MIN when it does not crop. Text carries no crop: the
** events before it, which the import kept as ftrace_event rows only, are not written. */
static int64_t ftrace_crop_ts(const trak_processor *p) {
  int64_t from = INT64_MIN;
  for (size_t i = 0; i < p->result.n_metadata; i++) {
    const trak_meta_row *m = &p->result.metadata[i];
    if (!m->is_str && m->value > from &&
        (!strcmp(m->name, "tracing_started_ns") || !strcmp(m->name, "ftrace_latest_data_start_ns")))
      from = m->value;
  }
  return from;
}

/* "systemTraceEvents": the ftrace events as systrace text, when there are any. */
static uint32_t system_trace_events(out *o, const trak_processor *p) {
  if (!o->t->ftrace_event.n) return 0;
  trak_textbuf text = {0};
  uint32_t skipped = trak__json_systrace_text(o->t, ftrace_crop_ts(p), &text);
  fputs(",\n\"systemTraceEvents\":", o->f);
  put_str_len(o->f, text.s, text.len);
  trak__textbuf_free(&text);
  return skipped;
}

int trak__json_export(trak_processor *p, FILE *f, uint64_t *dropped_flows, uint64_t *dropped_ftrace,
                      trak_error *err) {
  const trak_tables *t = &p->tables;
  trak__ensure_flow_index(p);
  /* Each thread's first thread track holds its X slices; other tracks go out as async. */
  uint8_t *is_thread_main = calloc(t->track.n + 1, 1);
  uint8_t *thread_seen = calloc(t->thread.n + 1, 1);
  if (!is_thread_main || !thread_seen) abort();
  for (uint32_t i = 0; i < t->track.n; i++) {
    uint32_t utid = t->track.utid[i];
    if (t->track.kind[i] != TRAK_TRACK_THREAD || utid == TRAK_NULL_U32 || thread_seen[utid])
      continue;
    thread_seen[utid] = is_thread_main[i] = 1;
  }
  out o = {f,
           t,
           1,
           is_thread_main,
           0,
           calloc(t->slice.n + 1, sizeof(uint32_t)),
           calloc(t->slice.n + 1, 1),
           calloc(t->flow.n + 1, 1),
           calloc(t->track.n + 1, 1),
           {0}};
  if (!o.bind || !o.bind_dir || !o.flow_v2 || !o.from_text) abort();
  mark_text_tracks(&o);
  assign_v2_flows(&o);
  fputs("{\"traceEvents\":[", f);
  metadata(&o);
  for (uint32_t i = 0; i < t->slice.n; i++)
    if (is_thread_main[t->slice.track_id[i]] && !skipped_slice(&o, i)) thread_slice(&o, p, i);
  async_slices(&o);
  counters(&o);
  thread_states(&o);
  fputs("\n]", f);
  uint32_t skipped = system_trace_events(&o, p);
  fputs(",\"displayTimeUnit\":\"ns\"}\n", f);
  for (uint32_t i = 0; i < t->flow.n; i++)
    o.dropped += !o.flow_v2[i] && !v1_expressible(&o, i);
  free(is_thread_main);
  free(thread_seen);
  free(o.bind);
  free(o.bind_dir);
  free(o.flow_v2);
  free(o.from_text);
  trak_vec_free(o.text_ts);
  if (fflush(f) || ferror(f)) return trak_error_set(err, TRAK_EIO, "write failed");
  if (dropped_flows) *dropped_flows = o.dropped;
  if (dropped_ftrace) *dropped_ftrace = skipped;
  return 0;
}
