/*
** This file reads SurfaceFlinger's FrameTimelineEvent packets as Perfetto's frame timeline
** parser does. A start event (expected or actual, of a display frame or of an app's surface
** frame) begins a slice named by the frame's token on a lane of its process's "Expected
** Timeline" or "Actual Timeline" tracks (types android_expected_frame_timeline and
** android_actual_frame_timeline, lanes as Perfetto's track compressor gives them by cookie);
** a FrameEnd ends the slice its cookie began. The slices' args carry the tokens, the layer and
** the verdict (present type, jank type and tag, prediction, ...) that the prelude's
** expected_frame_timeline_slice and actual_frame_timeline_slice read; an actual display frame
** takes a flow from each actual surface frame it presented. Perfetto parses the events after
** sorting, so they are kept until the end of the tokenizing and replayed in timestamp order
** (trak__frame_timeline_finish), which pushes each slice's begin and end records.
*/
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "processor/import/hash.h"
#include "processor/import/proto/proto.h"
#include "processor/import/tracks.h"
#include "processor/tables/arg_value.h"

/* The event of a packet: which start (or end) it is, and its fields as read. */
enum { FT_NONE, FT_EXPECTED_DISPLAY, FT_ACTUAL_DISPLAY, FT_EXPECTED_SURFACE, FT_ACTUAL_SURFACE,
       FT_END };
/* Fields present (bits of ft_ev.has). */
enum {
  HAS_COOKIE = 1 << 0,
  HAS_TOKEN = 1 << 1,
  HAS_DISPLAY_TOKEN = 1 << 2,
  HAS_PID = 1 << 3,
  HAS_LAYER = 1 << 4,
  HAS_PRESENT = 1 << 5,
  HAS_PRESENT_EXP = 1 << 6,
  HAS_PREDICTION = 1 << 7,
  HAS_SEVERITY = 1 << 8,
  HAS_IS_BUFFER = 1 << 9,
  HAS_FENCE = 1 << 10,
  HAS_ANIMATION = 1 << 11,
  HAS_LATCHED_COUNT = 1 << 12,
  HAS_ADDRESSABLE_COUNT = 1 << 13
};
/* The float fields (FrameTimelineEvent's float32 values). */
enum { F_PRESENT_DELAY, F_JITTER, F_SEVERITY_SCORE, F_DEBUG_METADATA, F_ANIMATION, F_COUNT };

typedef struct ft_ev {
  int64_t ts;
  trak_sequence *seq;
  uint32_t pkt;
  uint8_t kind;
  uint8_t on_time_finish, gpu_composition, is_buffer; /* bools as read (0 when absent) */
  uint32_t has;
  int64_t cookie, token, display_token, latched_count, addressable_count;
  int32_t pid, present, present_exp, jank, jank_exp, prediction, severity, fence;
  uint32_t layer; /* string id of its layer name ("" kept, as Perfetto keeps it), 0: none */
  float f[F_COUNT];
  size_t order;
} ft_ev;

struct trak_frame_timeline {
  TRAK_VEC(ft_ev) evs;
};

void trak__frame_timeline_free(struct trak_frame_timeline *st) {
  if (!st) return;
  trak_vec_free(st->evs);
  free(st);
}

static uint32_t cstr(trak_importer *imp, const char *s) {
  size_t n = strlen(s);
  return n ? trak__strpool_intern(&imp->tables->strings, s, n) : 0;
}

/* A float32 field's value (0 when its wire type is not fixed32). */
static float fixed_float(const trak_pb_field *f) {
  float v = 0;
  if (f->wire_type == TRAK_PB_WIRE_FIXED32) {
    uint32_t bits = (uint32_t)f->value;
    memcpy(&v, &bits, sizeof v);
  }
  return v;
}

/* What a field of an actual start holds: the actual display and surface frame starts number
** their verdict fields apart (0: the message has no such field). */
enum { R_NONE, R_PRESENT, R_ON_TIME, R_GPU, R_JANK, R_PREDICTION, R_IS_BUFFER, R_SEVERITY,
       R_DELAY, R_JITTER, R_SCORE, R_JANK_EXP, R_PRESENT_EXP, R_DEBUG, R_FENCE, R_ANIMATION,
       R_LATCHED, R_ADDRESSABLE };
#define D(x) TRAK_PB_FrameTimelineEvent_ActualDisplayFrameStart_##x
#define S(x) TRAK_PB_FrameTimelineEvent_ActualSurfaceFrameStart_##x
static const struct {
  uint8_t role, display, surface;
} roles[] = {{R_PRESENT, D(present_type), S(present_type)},
             {R_ON_TIME, D(on_time_finish), S(on_time_finish)},
             {R_GPU, D(gpu_composition), S(gpu_composition)},
             {R_JANK, D(jank_type), S(jank_type)},
             {R_PREDICTION, D(prediction_type), S(prediction_type)},
             {R_IS_BUFFER, 0, S(is_buffer)},
             {R_SEVERITY, D(jank_severity_type), S(jank_severity_type)},
             {R_DELAY, D(present_delay_millis), S(present_delay_millis)},
             {R_JITTER, 0, S(vsync_resynced_jitter_millis)},
             {R_SCORE, D(jank_severity_score), S(jank_severity_score)},
             {R_JANK_EXP, D(jank_type_experimental), S(jank_type_experimental)},
             {R_PRESENT_EXP, D(present_type_experimental), S(present_type_experimental)},
             {R_DEBUG, D(jank_debug_metadata), S(jank_debug_metadata)},
             {R_FENCE, 0, S(latched_fence_state)},
             {R_ANIMATION, 0, S(animation_time_millis)},
             {R_LATCHED, D(latched_unsignaled_count), 0},
             {R_ADDRESSABLE, D(addressable_unsignaled_latch_count), 0}};

/* The role of field `n` of an actual start (`surface`: a surface frame's). */
static int role_of(int surface, uint32_t n) {
  for (size_t i = 0; i < sizeof roles / sizeof *roles; i++)
    if (n == (surface ? roles[i].surface : roles[i].display) && n) return roles[i].role;
  return R_NONE;
}

/* A verdict field (`role`) of an actual start into *e: varints (enums, bools, counts) and
** float32s, each of its own wire type (another is skipped). */
static void verdict_read(ft_ev *e, int role, const trak_pb_field *f) {
  int varint = f->wire_type == TRAK_PB_WIRE_VARINT;
  int64_t v = (int64_t)f->value;
  int32_t v32 = (int32_t)f->value;
  switch (role) {
  case R_DELAY: e->f[F_PRESENT_DELAY] = fixed_float(f); return;
  case R_JITTER: e->f[F_JITTER] = fixed_float(f); return;
  case R_SCORE: e->f[F_SEVERITY_SCORE] = fixed_float(f); return;
  case R_DEBUG: e->f[F_DEBUG_METADATA] = fixed_float(f); return;
  case R_ANIMATION: e->f[F_ANIMATION] = fixed_float(f), e->has |= HAS_ANIMATION; return;
  default: break;
  }
  if (!varint) return;
  switch (role) {
  case R_PRESENT: e->present = v32, e->has |= HAS_PRESENT; break;
  case R_ON_TIME: e->on_time_finish = v != 0; break;
  case R_GPU: e->gpu_composition = v != 0; break;
  case R_JANK: e->jank = v32; break;
  case R_PREDICTION: e->prediction = v32, e->has |= HAS_PREDICTION; break;
  case R_IS_BUFFER: e->is_buffer = v != 0, e->has |= HAS_IS_BUFFER; break;
  case R_SEVERITY: e->severity = v32, e->has |= HAS_SEVERITY; break;
  case R_JANK_EXP: e->jank_exp = v32; break;
  case R_PRESENT_EXP: e->present_exp = v32, e->has |= HAS_PRESENT_EXP; break;
  case R_FENCE: e->fence = v32, e->has |= HAS_FENCE; break;
  case R_LATCHED: e->latched_count = v, e->has |= HAS_LATCHED_COUNT; break;
  case R_ADDRESSABLE: e->addressable_count = v, e->has |= HAS_ADDRESSABLE_COUNT; break;
  default: break;
  }
}

/* The fields of a start or end message of kind `kind` into *e. The messages number their
** shared fields alike up to the pid (surface frames put display_frame_token before it); the
** verdict fields of the actual starts differ (roles). */
static void fields_read(trak_importer *imp, ft_ev *e, const uint8_t *data, size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  int surface = e->kind == FT_EXPECTED_SURFACE || e->kind == FT_ACTUAL_SURFACE;
  int actual = e->kind == FT_ACTUAL_DISPLAY || e->kind == FT_ACTUAL_SURFACE;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    int varint = f.wire_type == TRAK_PB_WIRE_VARINT;
    uint32_t n = f.number;
    if (n == 1) { /* cookie, in every message */
      if (varint) e->cookie = (int64_t)f.value, e->has |= HAS_COOKIE;
      continue;
    }
    if (e->kind == FT_END) continue;
    if (n == 2) {
      if (varint) e->token = (int64_t)f.value, e->has |= HAS_TOKEN;
    } else if (n == (surface ? S(pid) : D(pid))) {
      if (varint) e->pid = (int32_t)f.value, e->has |= HAS_PID;
    } else if (surface && n == S(display_frame_token)) {
      if (varint) e->display_token = (int64_t)f.value, e->has |= HAS_DISPLAY_TOKEN;
    } else if (surface && n == S(layer_name)) {
      if (f.wire_type == TRAK_PB_WIRE_LEN) {
        e->layer = trak__strpool_intern(&imp->tables->strings, (const char *)f.data, f.len);
        e->has |= HAS_LAYER;
      }
    } else if (actual) {
      verdict_read(e, role_of(surface, n), &f);
    }
  }
}
#undef D
#undef S

void trak__frame_timeline_packet(trak_importer *imp, const trak_packet_ctx *ctx,
                                 const uint8_t *data, size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  trak_span last[FT_END + 1];
  memset(last, 0, sizeof last);
  uint8_t seen[FT_END + 1] = {0};
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) /* the last of each, as Perfetto's getters read */
    if (f.number >= FT_EXPECTED_DISPLAY && f.number <= FT_END && f.wire_type == TRAK_PB_WIRE_LEN)
      last[f.number] = (trak_span){f.data, f.len}, seen[f.number] = 1;
  ft_ev e;
  memset(&e, 0, sizeof e);
  for (int k = FT_EXPECTED_DISPLAY; k <= FT_END && e.kind == FT_NONE; k++)
    if (seen[k]) e.kind = (uint8_t)k; /* the first of the oneof's fields Perfetto tests */
  if (e.kind != FT_NONE) fields_read(imp, &e, last[e.kind].data, last[e.kind].len);
  trak_packet_state *s = trak__packet_state(imp);
  if (!s->frame_timeline) {
    s->frame_timeline = calloc(1, sizeof *s->frame_timeline);
    if (!s->frame_timeline) abort();
  }
  trak_packet_ctx timed = trak__packet_ctx_timed(imp, ctx);
  e.ts = timed.ts;
  e.seq = ctx->seq;
  e.pkt = (uint32_t)imp->packet_index;
  e.order = s->frame_timeline->evs.n;
  trak_vec_push(s->frame_timeline->evs, e);
}

/* ---- the replay ------------------------------------------------------------------------- */

static int ev_cmp(const void *a, const void *b) {
  const ft_ev *x = a, *y = b;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

/* A lane of a (timeline, process) set: the cookie it last served, its open begins, its track
** (TRAK_NULL_U32 until a begin or end first uses it). */
typedef struct ft_lane {
  int64_t cookie;
  uint32_t nest, track;
} ft_lane;

typedef struct ft_set {
  TRAK_VEC(ft_lane) lanes;
  uint32_t group;
} ft_set;

typedef struct replay {
  trak_importer *imp;
  trak_map sets;      /* timeline << 32 | upid -> 1 + index in set */
  TRAK_VEC(ft_set) set;
  trak_map cookies;   /* cookie -> 1 + index in cookie_upid (its timeline in cookie_actual) */
  TRAK_VEC(uint32_t) cookie_upid;
  TRAK_VEC(uint8_t) cookie_actual;
  trak_map expected_tokens; /* mix(upid, token) -> 1: an expected surface frame is made */
  trak_map pending;   /* display token -> 1 + index in surfaces of the last surface frame */
  TRAK_VEC(uint64_t) surfaces; /* flow id << 0, chained: [id, previous index + 1] pairs */
  uint32_t flows;     /* flow ids given */
  uint32_t groups;    /* track_group_ids given (one per set) */
} replay;

static uint64_t flow_id(uint32_t n) {
  return trak__mix(0x66746c6eULL, n) | 1;
}

/* The track of the lane of set (actual, upid) that `cookie` takes: the lane that served it,
** else the first with no begin open, else a new one; `begin` opens it. Made on first use, as
** Perfetto's track compressor makes its tracks. */
static uint32_t lane_track(replay *r, int actual, uint32_t upid, int64_t cookie, int begin) {
  trak_importer *imp = r->imp;
  int added;
  uint32_t *slot = trak__map_put(&r->sets, (uint64_t)actual << 32 | upid, 0, &added);
  if (added) {
    ft_set none = {{NULL, 0, 0}, r->groups++};
    trak_vec_push(r->set, none);
    *slot = (uint32_t)r->set.n;
  }
  ft_set *s = &r->set.v[*slot - 1];
  size_t l = 0, idle = SIZE_MAX;
  for (; l < s->lanes.n && s->lanes.v[l].cookie != cookie; l++)
    if (idle == SIZE_MAX && !s->lanes.v[l].nest) idle = l;
  if (l == s->lanes.n && idle != SIZE_MAX) l = idle, s->lanes.v[l].cookie = cookie;
  if (l == s->lanes.n) {
    ft_lane lane = {cookie, 0, TRAK_NULL_U32};
    trak_vec_push(s->lanes, lane);
  }
  ft_lane *ln = &s->lanes.v[l];
  if (begin)
    ln->nest++;
  else if (ln->nest)
    ln->nest--;
  if (ln->track == TRAK_NULL_U32) {
    trak_track_kind_id kind = actual ? TRAK_TK_ANDROID_ACTUAL_FRAME_TIMELINE
                                     : TRAK_TK_ANDROID_EXPECTED_FRAME_TIMELINE;
    uint32_t name = cstr(imp, actual ? "Actual Timeline" : "Expected Timeline");
    uint32_t track = trak__keyed_track(imp, trak__track_key(kind, upid, l), name, upid, 0, kind);
    imp->tracks.info.v[track].lane = (uint32_t)l;
    imp->tracks.info.v[track].group = s->group + 1;
    s = &r->set.v[*slot - 1], ln = &s->lanes.v[l];
    ln->track = track;
  }
  return ln->track;
}

/* A new arg of `key` in set `set`, of `type`; returns its row. */
static uint32_t arg(trak_importer *imp, uint32_t set, const char *key, trak_arg_type type) {
  uint32_t k = cstr(imp, key);
  return trak__arg_add(imp->tables, set, k, k, type);
}
/* (The row first: adding it may move the columns.) */
static void arg_int(trak_importer *imp, uint32_t set, const char *key, int64_t v) {
  uint32_t row = arg(imp, set, key, TRAK_ARG_INT);
  trak__arg_set_int(imp->tables, row, v);
}
static void arg_real(trak_importer *imp, uint32_t set, const char *key, float v) {
  uint32_t row = arg(imp, set, key, TRAK_ARG_REAL);
  trak__arg_set_real(imp->tables, row, (double)v);
}
static void arg_str(trak_importer *imp, uint32_t set, const char *key, uint32_t v) {
  uint32_t row = arg(imp, set, key, TRAK_ARG_STRING);
  trak__arg_set_str(imp->tables, row, v);
}

static void parser_error(trak_importer *imp, const ft_ev *e, const char *what) {
  trak__report_at(imp, TRAK_STAT_FRAME_TIMELINE_EVENT_PARSER_ERRORS, e->pkt,
                  "FrameTimelineEvent at %" PRId64 ": %s", e->ts, what);
}

/* The jank type bits as Perfetto names them ("None", "Unspecified", or reasons joined). */
static uint32_t jank_name(trak_importer *imp, int32_t jank) {
  static const char *const reasons[] = {
      "SurfaceFlinger Scheduling",  "Prediction Error",       "Display HAL",
      "SurfaceFlinger CPU Deadline Missed", "SurfaceFlinger GPU Deadline Missed",
      "App Deadline Missed",        "App Resynced Jitter",    "Buffer Stuffing",
      "Unknown Jank",               "SurfaceFlinger Stuffing", "Dropped Frame",
      "Non Animating",              "Display not ON",         "ModeChange in progress",
      "PowerModeChange in progress"};
  /* each reason's bit, in the order Perfetto lists them */
  static const int32_t bits[] = {2, 4, 8, 16, 32, 64, 4096, 128, 256, 512, 1024, 2048, 8192,
                                 16384, 32768};
  if (jank == 0) return cstr(imp, "Unspecified");
  if (jank == 1) return cstr(imp, "None");
  char text[512];
  size_t n = 0;
  text[0] = 0;
  for (size_t i = 0; i < sizeof bits / sizeof *bits; i++) {
    if (!(jank & bits[i])) continue;
    n += (size_t)snprintf(text + n, sizeof text - n, "%s%s", n ? ", " : "", reasons[i]);
  }
  return trak__strpool_intern(&imp->tables->strings, text, n); /* no known bit: "" */
}

enum { J_SF = 2 | 4 | 8 | 16 | 32, J_APP = 64 | 4096 | 256 };
/* Jank that is no jank: none, unspecified, not animating, display off. */
static int jank_quiet(int32_t j) {
  return j == 0 || j == 1 || j == 2048 || j == 8192;
}
static const char *jank_tag_rest(int32_t j) {
  if (j == 2048 || j == 8192 || j == 32768) return "Non-perceivable Jank";
  return "No Jank";
}
/* A display frame's jank tag. */
static const char *display_tag(int32_t j) {
  if (j == 0) return "Unspecified";
  if (!jank_quiet(j) && (j & J_SF)) return "Self Jank";
  if (j == 512) return "SurfaceFlinger Stuffing";
  if (j == 1024) return "Dropped Frame";
  return jank_tag_rest(j);
}
/* A surface frame's jank tag; `dropped`: its (valid) present type is PRESENT_DROPPED. */
static const char *surface_tag(int32_t j, int dropped) {
  if (j == 0) return "Unspecified";
  if (!jank_quiet(j) && (j & J_APP)) return "Self Jank";
  if (!jank_quiet(j) && (j & J_SF)) return "Other Jank";
  if (j == 128) return "Buffer Stuffing";
  if (j == 512) return "SurfaceFlinger Stuffing";
  if (dropped) return "Dropped Frame";
  return jank_tag_rest(j);
}

/* A present type's name when valid (1..5), else "Unspecified Present" and a parser error
** (none when absent). *valid: it was. */
static const char *present_name(trak_importer *imp, const ft_ev *e, int has, int32_t v,
                                int *valid) {
  static const char *const names[] = {"Unspecified Present", "On-time Present", "Late Present",
                                      "Early Present",       "Dropped Frame",   "Unknown Present"};
  *valid = 0;
  if (!has) return names[0];
  if (v < 1 || v > 5) {
    parser_error(imp, e, "present type out of range");
    return names[0];
  }
  *valid = 1;
  return names[v];
}

/* The args both actual starts share, up to the jank tags. */
static void verdict_args(replay *r, const ft_ev *e, uint32_t set, int surface) {
  trak_importer *imp = r->imp;
  static const char *const predictions[] = {"Unspecified Prediction", "Valid Prediction",
                                            "Expired Prediction", "Unknown Prediction"};
  static const char *const severities[] = {"Unknown", "None", "Partial", "Full"};
  int valid, valid_exp;
  const char *present = present_name(imp, e, !!(e->has & HAS_PRESENT), e->present, &valid);
  const char *present_exp =
      present_name(imp, e, !!(e->has & HAS_PRESENT_EXP), e->present_exp, &valid_exp);
  const char *severity = e->jank == 1 ? severities[1] : severities[0];
  if (e->has & HAS_SEVERITY) {
    /* (Perfetto indexes its names with the value unchecked; trak counts an error.) */
    if (e->severity >= 0 && e->severity <= 3)
      severity = severities[e->severity];
    else
      parser_error(imp, e, "jank severity type out of range"), severity = severities[0];
  }
  const char *prediction = predictions[0];
  if (e->has & HAS_PREDICTION) {
    if (e->prediction >= 1 && e->prediction <= 3)
      prediction = predictions[e->prediction];
    else
      parser_error(imp, e, "prediction type out of range");
  }
  arg_str(imp, set, "Present type", cstr(imp, present));
  arg_str(imp, set, "Present type (experimental)", cstr(imp, present_exp));
  arg_int(imp, set, "On time finish", e->on_time_finish);
  arg_int(imp, set, "GPU composition", e->gpu_composition);
  arg_str(imp, set, "Jank type", jank_name(imp, e->jank));
  arg_str(imp, set, "Jank type (experimental)", jank_name(imp, e->jank_exp));
  arg_str(imp, set, "Jank severity type", cstr(imp, severity));
  arg_real(imp, set, "Jank Severity Score", e->f[F_SEVERITY_SCORE]);
  arg_str(imp, set, "Prediction type", cstr(imp, prediction));
  const char *tag = surface ? surface_tag(e->jank, valid && e->present == 4) : display_tag(e->jank);
  const char *tag_exp = surface ? surface_tag(e->jank_exp, valid_exp && e->present_exp == 4)
                                : display_tag(e->jank_exp);
  arg_str(imp, set, "Jank tag", cstr(imp, tag));
  arg_str(imp, set, "Jank tag (experimental)", cstr(imp, tag_exp));
}

/* The begin record of event `e`'s slice on `track`, args `set`, flows in `aux` (0: none). */
static void push_begin(replay *r, const ft_ev *e, uint32_t track, uint32_t set, uint32_t aux) {
  trak_importer *imp = r->imp;
  char name[24];
  int n = snprintf(name, sizeof name, "%" PRId64, e->token);
  trak_ev ev = {e->ts, (uint32_t)TRAK_EV_BEGIN << TRAK_EV_TYPE_SHIFT | track, e->pkt,
                {{trak__strpool_intern(&imp->tables->strings, name, (size_t)n), 0}},
                trak__args_share(imp, set), aux};
  trak__sequence_push(imp, e->seq, &ev);
}

/* Remembers that `cookie` began a slice of process `upid` on the (actual) timeline. */
static void cookie_note(replay *r, int64_t cookie, uint32_t upid, int actual) {
  int added;
  uint32_t *slot = trak__map_put(&r->cookies, (uint64_t)cookie, 0, &added);
  if (!*slot) { /* new, or ended before */
    trak_vec_push(r->cookie_upid, 0);
    trak_vec_push(r->cookie_actual, 0);
    *slot = (uint32_t)r->cookie_upid.n;
  }
  r->cookie_upid.v[*slot - 1] = upid;
  r->cookie_actual.v[*slot - 1] = (uint8_t)actual;
}

/* An aux block of flow ids (sequence.h): `n_out` flows leaving the slice, then `n_in` ending
** there (from the slices that left them). */
static uint32_t flow_block(trak_importer *imp, const uint64_t *ids, uint64_t n_out, uint64_t n_in) {
  uint32_t aux = (uint32_t)imp->aux.n;
  trak_vec_push(imp->aux, n_out);
  trak_vec_push(imp->aux, n_in | TRAK_AUX_SLICE_FLOW);
  trak_vec_push(imp->aux, 0);
  for (uint64_t i = 0; i < n_out + n_in; i++)
    trak_vec_push(imp->aux, ids[i]);
  return aux;
}

static void display_start(replay *r, const ft_ev *e, int actual) {
  trak_importer *imp = r->imp;
  uint32_t upid = trak__process_for_pid(imp, (int64_t)(uint32_t)e->pid);
  cookie_note(r, e->cookie, upid, actual);
  uint32_t track = lane_track(r, actual, upid, e->cookie, 1);
  uint32_t set = (uint32_t)imp->tables->args.n;
  arg_int(imp, set, "Display frame token", e->token);
  if (!actual) {
    push_begin(r, e, track, set, 0);
    return;
  }
  arg_real(imp, set, "Present Delay (ms)", e->f[F_PRESENT_DELAY]);
  verdict_args(r, e, set, 0);
  arg_real(imp, set, "Jank Metadata (debugging only)", e->f[F_DEBUG_METADATA]);
  if (e->has & HAS_LATCHED_COUNT) arg_int(imp, set, "Latched unsignaled count", e->latched_count);
  if (e->has & HAS_ADDRESSABLE_COUNT)
    arg_int(imp, set, "Addressable unsignaled latch count", e->addressable_count);
  /* the surface frames it presented, in the order they began */
  TRAK_VEC(uint64_t) ids = {NULL, 0, 0};
  uint32_t *head = trak__map_get(&r->pending, (uint64_t)e->token);
  for (uint32_t i = head ? *head : 0; i; i = (uint32_t)r->surfaces.v[2 * (i - 1) + 1])
    trak_vec_push(ids, r->surfaces.v[2 * (i - 1)]);
  if (head) *head = 0;
  for (size_t i = 0; i < ids.n / 2; i++) { /* the chain runs newest first */
    uint64_t t = ids.v[i];
    ids.v[i] = ids.v[ids.n - 1 - i];
    ids.v[ids.n - 1 - i] = t;
  }
  push_begin(r, e, track, set, ids.n ? flow_block(imp, ids.v, 0, ids.n) : 0);
  trak_vec_free(ids);
}

static void surface_start(replay *r, const ft_ev *e, int actual) {
  trak_importer *imp = r->imp;
  uint32_t upid = trak__process_for_pid(imp, (int64_t)(uint32_t)e->pid);
  cookie_note(r, e->cookie, upid, actual);
  if (!actual) { /* one expected timeline per token and process */
    int added;
    trak__map_put(&r->expected_tokens, trak__mix(upid, (uint64_t)e->token), 1, &added);
    if (!added) return;
  }
  uint32_t track = lane_track(r, actual, upid, e->cookie, 1);
  uint32_t set = (uint32_t)imp->tables->args.n;
  arg_int(imp, set, "Surface frame token", e->token);
  arg_int(imp, set, "Display frame token", e->display_token);
  if (!actual) {
    arg_str(imp, set, "Layer name", e->layer);
    push_begin(r, e, track, set, 0);
    return;
  }
  static const char *const fences[] = {"Unknown", "Latched Signaled", "Latched Unsignaled",
                                       "Delayed Latch Fence Unsignaled"};
  if (e->has & HAS_ANIMATION) arg_real(imp, set, "Animation Time (ms)", e->f[F_ANIMATION]);
  arg_real(imp, set, "Present Delay (ms)", e->f[F_PRESENT_DELAY]);
  arg_real(imp, set, "Vsync Resynced Jitter (ms)", e->f[F_JITTER]);
  arg_str(imp, set, "Layer name", e->layer);
  verdict_args(r, e, set, 1);
  arg_str(imp, set, "Is Buffer?",
          cstr(imp, !(e->has & HAS_IS_BUFFER) ? "Unspecified" : e->is_buffer ? "Yes" : "No"));
  arg_real(imp, set, "Jank Metadata (debugging only)", e->f[F_DEBUG_METADATA]);
  if (e->has & HAS_FENCE) {
    /* (unchecked in Perfetto, as the severity) */
    int ok = e->fence >= 0 && e->fence <= 3;
    if (!ok) parser_error(imp, e, "latched fence state out of range");
    arg_str(imp, set, "Latched fence state", cstr(imp, fences[ok ? e->fence : 0]));
  }
  /* its flow into the actual display frame of its display token, when that begins */
  uint64_t id = flow_id(++r->flows);
  int added;
  uint32_t *head = trak__map_put(&r->pending, (uint64_t)e->display_token, 0, &added);
  trak_vec_push(r->surfaces, id);
  trak_vec_push(r->surfaces, *head);
  *head = (uint32_t)(r->surfaces.n / 2);
  push_begin(r, e, track, set, flow_block(imp, &id, 1, 0));
}

static void frame_end(replay *r, const ft_ev *e) {
  trak_importer *imp = r->imp;
  uint32_t *slot = trak__map_get(&r->cookies, (uint64_t)e->cookie);
  if (!slot || !*slot) {
    trak__report_at(imp, TRAK_STAT_FRAME_TIMELINE_UNPAIRED_END_EVENT, e->pkt,
                    "FrameTimelineEvent FrameEnd at %" PRId64 " of cookie %" PRId64
                    ", which began no frame (or ended already); dropped",
                    e->ts, e->cookie);
    return;
  }
  uint32_t c = *slot - 1;
  *slot = 0;
  uint32_t track = lane_track(r, r->cookie_actual.v[c], r->cookie_upid.v[c], e->cookie, 0);
  trak_ev ev = {e->ts, (uint32_t)TRAK_EV_END << TRAK_EV_TYPE_SHIFT | track, e->pkt,
                {{0, 0}}, TRAK_NULL_U32, 0};
  trak__sequence_push(imp, e->seq, &ev);
}

void trak__frame_timeline_finish(trak_importer *imp) {
  trak_packet_state *ps = imp->packet_state;
  struct trak_frame_timeline *st = ps ? ps->frame_timeline : NULL;
  if (!st || !st->evs.n) return;
  qsort(st->evs.v, st->evs.n, sizeof *st->evs.v, ev_cmp);
  replay r;
  memset(&r, 0, sizeof r);
  r.imp = imp;
  /* Perfetto's bound: timestamps this close to int64's ends are taken for mistakes */
  const int64_t bad = INT64_MAX - 10LL * 1000 * 1000 * 1000;
  for (size_t i = 0; i < st->evs.n; i++) {
    const ft_ev *e = &st->evs.v[i];
    if (e->ts < 0) { /* Perfetto's sorter drops it before its parser sees it */
      trak__report_at(imp, TRAK_STAT_NEGATIVE_TS_DROPPED, e->pkt,
                      "FrameTimelineEvent at %" PRId64 ", before zero; dropped", e->ts);
      continue;
    }
    if (e->ts >= bad) {
      parser_error(imp, e, "implausible timestamp (within 10 s of int64's end); dropped");
      continue;
    }
    switch (e->kind) {
    case FT_EXPECTED_DISPLAY:
    case FT_ACTUAL_DISPLAY:
      if ((e->has & (HAS_COOKIE | HAS_TOKEN | HAS_PID)) != (HAS_COOKIE | HAS_TOKEN | HAS_PID))
        parser_error(imp, e, "display frame start without a cookie, token or pid; dropped");
      else
        display_start(&r, e, e->kind == FT_ACTUAL_DISPLAY);
      break;
    case FT_EXPECTED_SURFACE:
    case FT_ACTUAL_SURFACE: {
      uint32_t need = HAS_COOKIE | HAS_TOKEN | HAS_DISPLAY_TOKEN | HAS_PID;
      if ((e->has & need) != need)
        parser_error(imp, e,
                     "surface frame start without a cookie, token, display frame token or "
                     "pid; dropped");
      else
        surface_start(&r, e, e->kind == FT_ACTUAL_SURFACE);
      break;
    }
    case FT_END:
      if (!(e->has & HAS_COOKIE))
        parser_error(imp, e, "FrameEnd without a cookie; dropped");
      else
        frame_end(&r, e);
      break;
    default:
      parser_error(imp, e, "no start or end event; dropped");
      break;
    }
  }
  for (size_t i = 0; i < r.set.n; i++)
    trak_vec_free(r.set.v[i].lanes);
  trak_vec_free(r.set), trak_vec_free(r.cookie_upid), trak_vec_free(r.cookie_actual);
  trak_vec_free(r.surfaces);
  trak__map_free(&r.sets), trak__map_free(&r.cookies), trak__map_free(&r.expected_tokens);
  trak__map_free(&r.pending);
  trak_vec_free(st->evs);
}
