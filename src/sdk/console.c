/*
** The built-in "console" interceptor: prints each track event as one line as it happens.
**
**     0.250 ms  demo 4242/main 4242  rendering  DrawFrame  frame=1
**     0.300 ms  demo 4242/main 4242    rendering  Upload  bytes=42
**     0.550 ms  demo 4242/main 4242    rendering  Upload end (0.250 ms)
**     0.600 ms  demo 4242/main 4242  memory  heap = 1024
**
** Time since the session started, process and thread (name and id; colored per thread on a
** terminal), indentation by slice nesting on the event's track, category, name, the duration
** when a slice ends, debug arguments and counter values. Each writer sequence keeps its own
** decoding state (thread state): interned strings, its incremental clock, its thread and
** process identity and per-track slice stacks. Lines of one instance are written whole, one
** write(2) each, under the instance lock.
*/
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sdk/internal.h"

#define MAX_TRACKS 32
#define MAX_DEPTH 16
#define LINE_MAX 1024

typedef struct frame {
  uint64_t ts;
  char name[48];
  char cat[32];
} frame;

typedef struct track {
  uint64_t uuid;
  char name[48]; /* from its descriptor (counter tracks) */
  int depth;
  frame stack[MAX_DEPTH];
} track;

typedef struct seq_state {
  trak_interning *strings;
  uint64_t clock;         /* the sequence's incremental clock */
  uint64_t default_track; /* track_event_defaults.track_uuid */
  int64_t pid, tid;
  char pname[48], tname[48];
  track *tracks[MAX_TRACKS];
  int ntracks;
} seq_state;

typedef struct console {
  trak_console_options opt;
  uint64_t start_ts;
} console;

static pthread_mutex_t defaults_lock = PTHREAD_MUTEX_INITIALIZER;
static trak_console_options defaults = {2, -1, 1, 1};

void trak_console_options_init(trak_console_options *o) {
  o->fd = 2;
  o->colors = -1;
  o->timestamps = 1;
  o->ids = 1;
}

void trak_console_set_options(const trak_console_options *o) {
  pthread_mutex_lock(&defaults_lock);
  if (o)
    defaults = *o;
  else
    trak_console_options_init(&defaults);
  pthread_mutex_unlock(&defaults_lock);
}

/* ---- lifecycle ----------------------------------------------------------------------------- */

/* Reads ConsoleConfig out of the InterceptorConfig over the C defaults. */
static int setup(void *user, const uint8_t *config, size_t len, void **state, trak_error *err) {
  console *c = calloc(1, sizeof *c);
  if (!c) return trak_error_set(err, TRAK_ENOMEM, "out of memory");
  pthread_mutex_lock(&defaults_lock);
  c->opt = defaults;
  pthread_mutex_unlock(&defaults_lock);
  trak_pb_decoder d, cc;
  trak_pb_field f, g;
  trak_pb_decoder_init(&d, config, len);
  while (trak_pb_decoder_next(&d, &f) == 1) {
    if (f.number != TRAK_PB_InterceptorConfig_console_config ||
        trak_pb_decoder_init_nested(&cc, &d, &f) != 0)
      continue;
    while (trak_pb_decoder_next(&cc, &g) == 1) {
      if (g.number == TRAK_PB_ConsoleConfig_output &&
          g.value == TRAK_PB_ConsoleConfig_OUTPUT_STDOUT)
        c->opt.fd = 1;
      if (g.number == TRAK_PB_ConsoleConfig_output &&
          g.value == TRAK_PB_ConsoleConfig_OUTPUT_STDERR)
        c->opt.fd = 2;
      if (g.number == TRAK_PB_ConsoleConfig_enable_colors) c->opt.colors = g.value != 0;
    }
  }
  if (c->opt.colors < 0) c->opt.colors = isatty(c->opt.fd) == 1;
  *state = c;
  return 0;
}

static void start(void *user, void *state) {
  ((console *)state)->start_ts = trak_clock_now();
}
static void stop(void *user, void *state) {
  free(state);
}

static void *seq_new(void *user) {
  seq_state *s = calloc(1, sizeof *s);
  if (s && !(s->strings = trak_interning_new())) {
    free(s);
    return NULL;
  }
  return s;
}

static void seq_free(void *user, void *state) {
  seq_state *s = state;
  trak_interning_free(s->strings);
  for (int i = 0; i < s->ntracks; i++)
    free(s->tracks[i]);
  free(s);
}

static track *find_track(seq_state *s, uint64_t uuid) {
  for (int i = 0; i < s->ntracks; i++)
    if (s->tracks[i]->uuid == uuid) return s->tracks[i];
  if (s->ntracks == MAX_TRACKS) return NULL;
  track *t = calloc(1, sizeof *t);
  if (t) {
    t->uuid = uuid;
    s->tracks[s->ntracks++] = t;
  }
  return t;
}

static void copy_str(char *dst, size_t cap, const void *src, size_t len) {
  if (len >= cap) len = cap - 1;
  memcpy(dst, src, len);
  dst[len] = 0;
}

/* ---- lines ------------------------------------------------------------------------------- */

typedef struct line {
  char buf[LINE_MAX];
  size_t n;
} line;

static void add(line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(line *l, const char *fmt, ...) {
  if (l->n >= sizeof l->buf - 1) return;
  va_list ap;
  va_start(ap, fmt);
  int r = vsnprintf(l->buf + l->n, sizeof l->buf - l->n, fmt, ap);
  va_end(ap);
  if (r > 0) l->n += (size_t)r < sizeof l->buf - l->n ? (size_t)r : sizeof l->buf - 1 - l->n;
}

/* Plain appends: the console's lines are mostly names and integers, and printf's format
** parsing used to be half of an event's cost. */
static void add_mem(line *l, const void *s, size_t n) {
  size_t room = sizeof l->buf - 1 - l->n;
  if (n > room) n = room;
  memcpy(l->buf + l->n, s, n);
  l->n += n;
  l->buf[l->n] = 0;
}
static void add_str(line *l, const char *s) {
  add_mem(l, s, strlen(s));
}

static void add_u64_width(line *l, uint64_t v, int width) {
  char tmp[24]; /* written from its end: 20 digits at most, then the padding */
  char *end = tmp + sizeof tmp, *p = end;
  do
    *--p = (char)('0' + v % 10);
  while ((v /= 10) != 0);
  while (p > tmp && end - p < width)
    *--p = ' ';
  add_mem(l, p, (size_t)(end - p));
}
static void add_i64(line *l, int64_t v) {
  if (v < 0) add_mem(l, "-", 1);
  add_u64_width(l, v < 0 ? 0 - (uint64_t)v : (uint64_t)v, 0);
}

/* `units` / `scale` with three decimals (truncated), the whole part padded to `width`. */
static void add_fixed3(line *l, uint64_t units, uint64_t scale, int width) {
  char frac[4];
  uint64_t f = units % scale * 1000 / scale;
  frac[0] = '.';
  frac[1] = (char)('0' + f / 100);
  frac[2] = (char)('0' + f / 10 % 10);
  frac[3] = (char)('0' + f % 10);
  add_u64_width(l, units / scale, width);
  add_mem(l, frac, 4);
}

static void add_duration(line *l, uint64_t ns) {
  if (ns < 1000) {
    add_u64_width(l, ns, 0);
    add_str(l, " ns");
  } else if (ns < 1000000) {
    add_fixed3(l, ns, 1000, 0);
    add_str(l, " us");
  } else if (ns < 1000000000) {
    add_fixed3(l, ns, 1000000, 0);
    add_str(l, " ms");
  } else {
    add_fixed3(l, ns, 1000000000, 0);
    add_str(l, " s");
  }
}

/* " name=value" for one DebugAnnotation. */
static void add_arg(line *l, const seq_state *s, const uint8_t *data, size_t len) {
  trak_pb_decoder d;
  trak_pb_field f;
  const char *name = "?";
  size_t nlen = 1;
  line v = {{0}, 0};
  trak_pb_decoder_init(&d, data, len);
  while (trak_pb_decoder_next(&d, &f) == 1) {
    const char *str;
    size_t slen;
    switch (f.number) {
    case TRAK_PB_DebugAnnotation_name_iid:
      if ((str = trak_interning_get(s->strings, TRAK_PB_InternedData_debug_annotation_names,
                                    f.value, &slen))) {
        name = str;
        nlen = slen;
      }
      break;
    case TRAK_PB_DebugAnnotation_name:
      name = (const char *)f.data;
      nlen = f.len;
      break;
    case TRAK_PB_DebugAnnotation_bool_value:
      add_str(&v, f.value ? "true" : "false");
      break;
    case TRAK_PB_DebugAnnotation_uint_value:
      add_u64_width(&v, f.value, 0);
      break;
    case TRAK_PB_DebugAnnotation_int_value:
      add_i64(&v, (int64_t)f.value);
      break;
    case TRAK_PB_DebugAnnotation_double_value:
      add(&v, "%g", trak_pb_as_double(&f));
      break;
    case TRAK_PB_DebugAnnotation_pointer_value:
      add(&v, "0x%" PRIx64, f.value);
      break;
    case TRAK_PB_DebugAnnotation_string_value:
      add_str(&v, "\"");
      add_mem(&v, f.data, f.len);
      add_str(&v, "\"");
      break;
    case TRAK_PB_DebugAnnotation_string_value_iid:
      str = trak_interning_get(s->strings, TRAK_PB_InternedData_debug_annotation_string_values,
                               f.value, &slen);
      if (str) add(&v, "\"%.*s\"", (int)slen, str);
      break;
    case TRAK_PB_DebugAnnotation_nested_value:
    case TRAK_PB_DebugAnnotation_dict_entries:
    case TRAK_PB_DebugAnnotation_array_values:
      add(&v, "{...}");
      break;
    default:
      break;
    }
  }
  add_str(l, " ");
  add_mem(l, name, nlen);
  add_str(l, "=");
  add_mem(l, v.n ? v.buf : "?", v.n ? v.n : 1);
}

/* The parts of a TrackEvent the line needs. */
typedef struct event {
  uint64_t type, track;
  const char *name, *cat;
  size_t name_len, cat_len;
  int has_int, has_double;
  int64_t counter;
  double dcounter;
} event;

static void decode_event(const seq_state *s, const uint8_t *data, size_t len, event *ev) {
  trak_pb_decoder d;
  trak_pb_field f;
  memset(ev, 0, sizeof *ev);
  ev->track = s->default_track;
  trak_pb_decoder_init(&d, data, len);
  while (trak_pb_decoder_next(&d, &f) == 1) {
    switch (f.number) {
    case TRAK_PB_TrackEvent_type:
      ev->type = f.value;
      break;
    case TRAK_PB_TrackEvent_track_uuid:
      ev->track = f.value;
      break;
    case TRAK_PB_TrackEvent_name:
      ev->name = (const char *)f.data;
      ev->name_len = f.len;
      break;
    case TRAK_PB_TrackEvent_name_iid:
      ev->name =
          trak_interning_get(s->strings, TRAK_PB_InternedData_event_names, f.value, &ev->name_len);
      break;
    case TRAK_PB_TrackEvent_categories:
      if (!ev->cat) {
        ev->cat = (const char *)f.data;
        ev->cat_len = f.len;
      }
      break;
    case TRAK_PB_TrackEvent_category_iids:
      if (!ev->cat)
        ev->cat = trak_interning_get(s->strings, TRAK_PB_InternedData_event_categories, f.value,
                                     &ev->cat_len);
      break;
    case TRAK_PB_TrackEvent_counter_value:
      ev->has_int = 1;
      ev->counter = (int64_t)f.value;
      break;
    case TRAK_PB_TrackEvent_double_counter_value:
      ev->has_double = 1;
      ev->dcounter = trak_pb_as_double(&f);
      break;
    default:
      break;
    }
  }
}

/* Formats the line of one track event at `ts`; returns 0 when nothing is to be printed. */
static int format_event(line *l, seq_state *s, const console *c, uint64_t ts, const uint8_t *data,
                        size_t len) {
  event ev;
  decode_event(s, data, len, &ev);
  track *tr = find_track(s, ev.track);
  if (c->opt.timestamps) { /* "%9.3f ms" of the time since the session started */
    line num = {{0}, 0};
    if (ts < c->start_ts) add_str(&num, "-");
    add_fixed3(&num, ts < c->start_ts ? c->start_ts - ts : ts - c->start_ts, 1000000, 0);
    if (num.n < 9) add_mem(l, "         ", 9 - num.n);
    add_mem(l, num.buf, num.n);
    add_str(l, " ms  ");
  }
  if (c->opt.colors) {
    char esc[] = "\x1b[3?m";
    esc[3] = (char)('1' + (uint64_t)s->tid % 6);
    add_str(l, esc);
  }
  add_str(l, s->pname[0] ? s->pname : "process");
  if (c->opt.ids) {
    add_str(l, " ");
    add_i64(l, s->pid);
  }
  add_str(l, "/");
  add_str(l, s->tname[0] ? s->tname : "thread");
  if (c->opt.ids) {
    add_str(l, " ");
    add_i64(l, s->tid);
  }
  if (c->opt.colors) add_str(l, "\x1b[0m");
  int depth = tr ? tr->depth : 0;
  if (ev.type == TRAK_PB_TrackEvent_TYPE_SLICE_END && depth > 0) depth--;
  static const char spaces[2 * MAX_DEPTH + 2] = "                                  ";
  add_mem(l, spaces, 2 + 2 * (size_t)(depth < MAX_DEPTH ? depth : MAX_DEPTH));
  if (ev.type == TRAK_PB_TrackEvent_TYPE_SLICE_END) {
    if (tr && tr->depth > MAX_DEPTH) {
      tr->depth--;
      add_str(l, "(end of a slice nested too deep to show)");
    } else if (tr && tr->depth > 0) {
      frame *fr = &tr->stack[--tr->depth];
      add_str(l, fr->cat);
      add_str(l, "  ");
      add_str(l, fr->name);
      add_str(l, " end (");
      add_duration(l, ts > fr->ts ? ts - fr->ts : 0);
      add_str(l, ")");
    } else {
      add_str(l, "(end of a slice begun before the session)");
    }
    return 1;
  }
  if (ev.cat) {
    add_mem(l, ev.cat, ev.cat_len);
    add_str(l, "  ");
  }
  if (ev.type == TRAK_PB_TrackEvent_TYPE_COUNTER) {
    add_str(l, tr && tr->name[0] ? tr->name : "counter");
    add_str(l, " = ");
    if (ev.has_double)
      add(l, "%g", ev.dcounter);
    else
      add_i64(l, ev.counter);
    return 1;
  }
  if (ev.name)
    add_mem(l, ev.name, ev.name_len);
  else
    add_str(l, "?");
  if (ev.type == TRAK_PB_TrackEvent_TYPE_INSTANT) add_str(l, " (instant)");
  if (ev.type == TRAK_PB_TrackEvent_TYPE_SLICE_BEGIN && tr && tr->depth < MAX_DEPTH) {
    frame *fr = &tr->stack[tr->depth++];
    fr->ts = ts;
    copy_str(fr->name, sizeof fr->name, ev.name ? ev.name : "?", ev.name ? ev.name_len : 1);
    copy_str(fr->cat, sizeof fr->cat, ev.cat ? ev.cat : "", ev.cat ? ev.cat_len : 0);
  } else if (ev.type == TRAK_PB_TrackEvent_TYPE_SLICE_BEGIN && tr) {
    tr->depth++; /* too deep to remember: counted so the ends still balance */
  }
  trak_pb_decoder d;
  trak_pb_field f;
  int first = 1;
  trak_pb_decoder_init(&d, data, len);
  while (trak_pb_decoder_next(&d, &f) == 1) {
    if (f.number != TRAK_PB_TrackEvent_debug_annotations) continue;
    if (first) add_str(l, " ");
    first = 0;
    add_arg(l, s, f.data, f.len);
  }
  return 1;
}

/* Remembers what a TrackDescriptor says about the sequence's thread, process or tracks. */
static void take_descriptor(seq_state *s, const uint8_t *data, size_t len) {
  trak_pb_decoder d, sub;
  trak_pb_field f, g;
  uint64_t uuid = 0;
  const uint8_t *name = NULL;
  size_t name_len = 0;
  trak_pb_decoder_init(&d, data, len);
  while (trak_pb_decoder_next(&d, &f) == 1) {
    if (f.number == TRAK_PB_TrackDescriptor_uuid) uuid = f.value;
    if (f.number == TRAK_PB_TrackDescriptor_name && f.wire_type == TRAK_PB_WIRE_LEN) {
      name = f.data;
      name_len = f.len;
    }
    if (f.number == TRAK_PB_TrackDescriptor_thread &&
        trak_pb_decoder_init_nested(&sub, &d, &f) == 0) {
      while (trak_pb_decoder_next(&sub, &g) == 1) {
        if (g.number == TRAK_PB_ThreadDescriptor_pid) s->pid = (int64_t)g.value;
        if (g.number == TRAK_PB_ThreadDescriptor_tid) s->tid = (int64_t)g.value;
        if (g.number == TRAK_PB_ThreadDescriptor_thread_name && g.wire_type == TRAK_PB_WIRE_LEN)
          copy_str(s->tname, sizeof s->tname, g.data, g.len);
      }
    }
    if (f.number == TRAK_PB_TrackDescriptor_process &&
        trak_pb_decoder_init_nested(&sub, &d, &f) == 0) {
      while (trak_pb_decoder_next(&sub, &g) == 1) {
        if (g.number == TRAK_PB_ProcessDescriptor_pid) s->pid = (int64_t)g.value;
        if (g.number == TRAK_PB_ProcessDescriptor_process_name && g.wire_type == TRAK_PB_WIRE_LEN)
          copy_str(s->pname, sizeof s->pname, g.data, g.len);
      }
    }
  }
  track *t = name && uuid ? find_track(s, uuid) : NULL;
  if (t) copy_str(t->name, sizeof t->name, name, name_len);
}

/* The sequence's incremental clock value from a ClockSnapshot, if it carries one. */
static void take_snapshot(seq_state *s, const uint8_t *data, size_t len) {
  trak_pb_decoder d, c;
  trak_pb_field f, g;
  trak_pb_decoder_init(&d, data, len);
  while (trak_pb_decoder_next(&d, &f) == 1) {
    if (f.number != TRAK_PB_ClockSnapshot_clocks || trak_pb_decoder_init_nested(&c, &d, &f) != 0)
      continue;
    uint64_t id = 0, ts = 0;
    while (trak_pb_decoder_next(&c, &g) == 1) {
      if (g.number == TRAK_PB_ClockSnapshot_Clock_clock_id) id = g.value;
      if (g.number == TRAK_PB_ClockSnapshot_Clock_timestamp) ts = g.value;
    }
    if (id == TRAK__SEQ_CLOCK_ID) s->clock = ts;
  }
}

static void take_defaults(seq_state *s, const uint8_t *data, size_t len) {
  trak_pb_decoder d, e;
  trak_pb_field f, g;
  trak_pb_decoder_init(&d, data, len);
  while (trak_pb_decoder_next(&d, &f) == 1) {
    if (f.number != TRAK_PB_TracePacketDefaults_track_event_defaults ||
        trak_pb_decoder_init_nested(&e, &d, &f) != 0)
      continue;
    while (trak_pb_decoder_next(&e, &g) == 1)
      if (g.number == TRAK_PB_TrackEventDefaults_track_uuid) s->default_track = g.value;
  }
}

static void write_all(int fd, const char *p, size_t n) {
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    p += w;
    n -= (size_t)w;
  }
}

static void on_packet(const trak_intercepted_packet *pkt) {
  seq_state *s = pkt->thread_state;
  if (!s) return;
  trak_interning_update(s->strings, pkt->data, pkt->len, pkt->sequence_flags);
  trak_pb_decoder d;
  trak_pb_field f;
  uint64_t ts = 0, clock_id = 0;
  int has_ts = 0;
  const uint8_t *te = NULL;
  size_t te_len = 0;
  trak_pb_decoder_init(&d, pkt->data, pkt->len);
  while (trak_pb_decoder_next(&d, &f) == 1) {
    switch (f.number) {
    case TRAK_PB_TracePacket_timestamp:
      ts = f.value;
      has_ts = 1;
      break;
    case TRAK_PB_TracePacket_timestamp_clock_id:
      clock_id = f.value;
      break;
    case TRAK_PB_TracePacket_clock_snapshot:
      take_snapshot(s, f.data, f.len);
      break;
    case TRAK_PB_TracePacket_trace_packet_defaults:
      take_defaults(s, f.data, f.len);
      break;
    case TRAK_PB_TracePacket_track_descriptor:
      take_descriptor(s, f.data, f.len);
      break;
    case TRAK_PB_TracePacket_track_event:
      te = f.data;
      te_len = f.len;
      break;
    default:
      break;
    }
  }
  /* Timestamps are deltas on the sequence's incremental clock unless another clock is named
  ** (a restart packet, or an event with an explicit timestamp). */
  if (has_ts && (clock_id == 0 || clock_id == TRAK__SEQ_CLOCK_ID)) ts = s->clock += ts;
  if (!te) return;
  console *c = trak_interceptor_lock(pkt);
  line l = {{0}, 0};
  if (format_event(&l, s, c, ts, te, te_len)) {
    add_str(&l, "\n");
    if (l.buf[l.n - 1] != '\n') l.buf[l.n - 1] = '\n'; /* a truncated line still ends */
    write_all(c->opt.fd, l.buf, l.n);
  }
  trak_interceptor_unlock(pkt);
}

const trak_interceptor_desc trak__console_desc = {
    "console", NULL, setup, start, stop, seq_new, seq_free, on_packet,
};
