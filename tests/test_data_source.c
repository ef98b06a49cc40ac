/*
** Custom data sources: registration, setup with the config bytes, start / flush / stop, packets
** written only while an instance is active, their own packet sequences, per-instance state,
** per-sequence incremental state and interning across clears, configs that enable only some
** data sources, and a custom data source routed to an interceptor.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trak/pbtxt.h"
#include "trak/trak.h"
#include "sdk_decode.h"

TRAK_CATEGORY_DEFINE(cat_d, "ds", "data source tests");

/* ---- a test data source ------------------------------------------------------------------ */

typedef struct counts {
  int setup, start, stop, flush, incr_new, incr_free, traced;
  char config_name[64];
  char legacy[64];
} counts;

static counts cnt;
static trak_data_source *ds_test;

typedef struct instance_state {
  int packets; /* guarded by the instance lock */
} instance_state;

static int ds_setup(void *user, uint32_t inst, const uint8_t *config, size_t len, void **state) {
  cnt.setup++;
  trak_pb_decoder d;
  trak_pb_field f;
  trak_pb_decoder_init(&d, config, len);
  while (trak_pb_decoder_next(&d, &f) == 1) {
    if (f.number == TRAK_PB_DataSourceConfig_name)
      snprintf(cnt.config_name, sizeof cnt.config_name, "%.*s", (int)f.len, f.data);
    if (f.number == TRAK_PB_DataSourceConfig_legacy_config)
      snprintf(cnt.legacy, sizeof cnt.legacy, "%.*s", (int)f.len, f.data);
  }
  if (strcmp(cnt.legacy, "refuse") == 0) return -1;
  *state = calloc(1, sizeof(instance_state));
  return 0;
}
static void ds_start(void *user, uint32_t inst, void *state) {
  cnt.start++;
}
static void ds_stop(void *user, uint32_t inst, void *state) {
  cnt.stop++;
  free(state);
}
static void ds_flush(void *user, uint32_t inst, void *state) {
  cnt.flush++;
}
static void *incr_new(void *user) {
  cnt.incr_new++;
  return calloc(1, sizeof(int));
}
static void incr_free(void *user, void *state) {
  cnt.incr_free++;
  free(state);
}

static void write_name(trak_pb_buf *entry, uint64_t iid, const void *value) {
  trak_pb_put_varint(entry, TRAK_PB_EventName_iid, iid);
  trak_pb_put_string(entry, TRAK_PB_EventName_name, value);
}
static trak_interned_type names_type = {TRAK_PB_InternedData_event_names, write_name, 0};

/* Writes one packet: an instant track event whose name is interned on the sequence. */
static void trace_one(trak_ds_ctx *ctx, void *user) {
  const char *name = user;
  cnt.traced++;
  int *incr = trak_ds_incremental_state(ctx);
  assert_non_null(incr);
  (*incr)++;
  instance_state *st = trak_ds_lock_instance(ctx);
  st->packets++;
  trak_ds_unlock_instance(ctx);
  trak_pb_buf *p = trak_ds_new_packet(ctx);
  trak_pb_put_varint(p, TRAK_PB_TracePacket_timestamp, trak_clock_now());
  trak_pb_put_varint(p, TRAK_PB_TracePacket_timestamp_clock_id, TRAK_PB_BUILTIN_CLOCK_BOOTTIME);
  if (trak_ds_incremental_state_cleared(ctx))
    trak_pb_put_varint(p, TRAK_PB_TracePacket_sequence_flags,
                       TRAK_PB_TracePacket_SEQ_INCREMENTAL_STATE_CLEARED);
  uint64_t iid = trak_ds_intern(ctx, &names_type, (uintptr_t)name, name);
  trak_pb_nested te = trak_pb_begin_nested_short(p, TRAK_PB_TracePacket_track_event);
  trak_pb_put_varint(p, TRAK_PB_TrackEvent_type, TRAK_PB_TrackEvent_TYPE_INSTANT);
  trak_pb_put_varint(p, TRAK_PB_TrackEvent_name_iid, iid);
  trak_pb_end_nested_short(p, te);
}

static int group_setup(void **state) {
  trak_data_source_desc d;
  memset(&d, 0, sizeof d);
  d.name = "test.ds";
  d.setup = ds_setup;
  d.start = ds_start;
  d.stop = ds_stop;
  d.flush = ds_flush;
  d.incremental_state_new = incr_new;
  d.incremental_state_free = incr_free;
  trak_error err;
  assert_int_equal(trak_data_source_register(&d, &ds_test, &err), 0);
  return 0;
}

/* ---- reading the trace back -------------------------------------------------------------- */

/* What the test needs of a trace: per packet its sequence, flags and event name (resolved
** through the sequence's own interned names, reset at each SEQ_INCREMENTAL_STATE_CLEARED). */
typedef struct pkt_info {
  uint32_t seq, flags;
  int first, has_event, interned;
  char name[64];
} pkt_info;

typedef struct seq_names {
  uint32_t seq;
  char names[16][64];
  int valid;
} seq_names;

static int read_trace(trak_session *s, pkt_info *out, int max) {
  static seq_names seqs[64];
  int nseqs = 0;
  memset(seqs, 0, sizeof seqs);
  uint8_t *data;
  size_t len;
  assert_int_equal(trak_session_read(s, &data, &len, NULL), 0);
  /* Sessions are read once stopped: the trace ends with the service's trace_stats packet; the
  ** tests look at the packets before it. */
  assert_true(dec_cut_trace_stats(data, &len));
  trak_pb_decoder d, p, x, y;
  trak_pb_field f, g, h, k;
  int n = 0;
  trak_pb_decoder_init(&d, data, len);
  while (trak_pb_decoder_next(&d, &f) == 1 && n < max) {
    pkt_info *pi = &out[n++];
    memset(pi, 0, sizeof *pi);
    uint64_t name_iid = 0;
    trak_pb_decoder_init_nested(&p, &d, &f);
    while (trak_pb_decoder_next(&p, &g) == 1) {
      if (g.number == TRAK_PB_TracePacket_trusted_packet_sequence_id) pi->seq = (uint32_t)g.value;
      if (g.number == TRAK_PB_TracePacket_sequence_flags) pi->flags = (uint32_t)g.value;
      if (g.number == TRAK_PB_TracePacket_first_packet_on_sequence) pi->first = 1;
      if (g.number == TRAK_PB_TracePacket_track_event) {
        pi->has_event = 1;
        trak_pb_decoder_init_nested(&x, &p, &g);
        while (trak_pb_decoder_next(&x, &h) == 1)
          if (h.number == TRAK_PB_TrackEvent_name_iid) name_iid = h.value;
      }
    }
    seq_names *sn = NULL;
    for (int i = 0; i < nseqs; i++)
      if (seqs[i].seq == pi->seq) sn = &seqs[i];
    if (!sn) {
      sn = &seqs[nseqs++];
      sn->seq = pi->seq;
    }
    if (pi->flags & TRAK_PB_TracePacket_SEQ_INCREMENTAL_STATE_CLEARED) {
      memset(sn->names, 0, sizeof sn->names);
      sn->valid = 1;
    }
    trak_pb_decoder_init_nested(&p, &d, &f);
    while (trak_pb_decoder_next(&p, &g) == 1) {
      if (g.number != TRAK_PB_TracePacket_interned_data) continue;
      trak_pb_decoder_init_nested(&x, &p, &g);
      while (trak_pb_decoder_next(&x, &h) == 1) {
        if (h.number != TRAK_PB_InternedData_event_names) continue;
        pi->interned++;
        uint64_t iid = 0;
        char name[64] = "";
        trak_pb_decoder_init_nested(&y, &x, &h);
        while (trak_pb_decoder_next(&y, &k) == 1) {
          if (k.number == TRAK_PB_EventName_iid) iid = k.value;
          if (k.number == TRAK_PB_EventName_name)
            snprintf(name, sizeof name, "%.*s", (int)k.len, k.data);
        }
        if (iid < 16) strcpy(sn->names[iid], name);
      }
    }
    if (pi->has_event && name_iid && name_iid < 16 && sn->valid)
      snprintf(pi->name, sizeof pi->name, "%s", sn->names[name_iid]);
  }
  free(data);
  return n;
}

static trak_session *start_text(const char *text) {
  trak_session *s;
  trak_error err;
  if (trak_session_new_from_text(text, &s, &err) != 0) fail_msg("%s", err.message);
  assert_int_equal(trak_session_start(s, &err), 0);
  return s;
}

/* ---- tests ----------------------------------------------------------------------------- */

static void test_lifecycle_and_packets(void **state) {
  memset(&cnt, 0, sizeof cnt);
  TRAK_DATA_SOURCE_TRACE(ds_test, trace_one, "never"); /* no session: not called */
  assert_int_equal(cnt.traced, 0);
  assert_false(TRAK_DATA_SOURCE_ENABLED(ds_test));
  trak_session *s =
      start_text("data_sources { config { name: \"test.ds\" legacy_config: \"hello\" } }");
  assert_int_equal(cnt.setup, 1);
  assert_int_equal(cnt.start, 1);
  assert_string_equal(cnt.config_name, "test.ds");
  assert_string_equal(cnt.legacy, "hello");
  assert_true(TRAK_DATA_SOURCE_ENABLED(ds_test));
  TRAK_DATA_SOURCE_TRACE(ds_test, trace_one, "alpha");
  TRAK_DATA_SOURCE_TRACE(ds_test, trace_one, "beta");
  TRAK_DATA_SOURCE_TRACE(ds_test, trace_one, "alpha");
  TRAK_EVENT_INSTANT(cat_d, "not recorded"); /* the config does not list track_event */
  assert_int_equal(trak_session_flush(s, NULL), 0);
  assert_int_equal(cnt.flush, 1);
  assert_int_equal(trak_session_stop(s, NULL), 0);
  assert_int_equal(cnt.stop, 1);
  assert_false(TRAK_DATA_SOURCE_ENABLED(ds_test));
  TRAK_DATA_SOURCE_TRACE(ds_test, trace_one, "after");
  assert_int_equal(cnt.traced, 3);

  pkt_info p[16];
  int n = read_trace(s, p, 16);
  assert_int_equal(n, 3);
  assert_string_equal(p[0].name, "alpha");
  assert_string_equal(p[1].name, "beta");
  assert_string_equal(p[2].name, "alpha");
  assert_int_equal(p[0].first, 1);
  assert_int_equal(p[0].flags, TRAK_PB_TracePacket_SEQ_INCREMENTAL_STATE_CLEARED);
  assert_int_equal(p[1].flags, 0);
  assert_int_equal(p[0].interned, 1);
  assert_int_equal(p[1].interned, 1);
  assert_int_equal(p[2].interned, 0); /* "alpha" is already interned on the sequence */
  assert_int_equal(p[0].seq, p[2].seq);
  assert_int_equal(cnt.incr_new, 1);
  trak_session_free(s);
}

/* Two sessions: each instance has its own sequence; a refused setup skips the instance. */
static void test_two_instances_and_refusal(void **state) {
  memset(&cnt, 0, sizeof cnt);
  trak_session *a = start_text("data_sources { config { name: \"test.ds\" } }");
  trak_session *b =
      start_text("data_sources { config { name: \"test.ds\" } } data_sources { config { name: "
                 "\"track_event\" } }");
  trak_session *c =
      start_text("data_sources { config { name: \"test.ds\" legacy_config: \"refuse\" } }");
  assert_int_equal(cnt.setup, 3);
  assert_int_equal(cnt.start, 2);
  TRAK_DATA_SOURCE_TRACE(ds_test, trace_one, "both");
  TRAK_EVENT_INSTANT(cat_d, "only b");
  assert_int_equal(cnt.traced, 2);
  trak_session_stop(a, NULL);
  trak_session_stop(b, NULL);
  trak_session_stop(c, NULL);
  assert_int_equal(cnt.stop, 2);
  pkt_info pa[16], pb[16], pc[16];
  assert_int_equal(read_trace(a, pa, 16), 1);
  int nb = read_trace(b, pb, 16);
  assert_true(nb > 2); /* the data source's packet, the track event and its restart packets */
  assert_int_equal(read_trace(c, pc, 16), 0);
  int found = 0;
  for (int i = 0; i < nb; i++)
    found += strcmp(pb[i].name, "both") == 0;
  assert_int_equal(found, 1);
  assert_int_not_equal(pa[0].seq, pb[0].seq);
  trak_session_free(a);
  trak_session_free(b);
  trak_session_free(c);
}

static uint64_t fake_ns;
static uint64_t fake_clock(void) {
  return fake_ns;
}

/* With periodic clears every millisecond, every packet's name still resolves through the
** interned data of its own sequence generation, and the incremental state is recreated. */
static void test_interning_across_clears(void **state) {
  memset(&cnt, 0, sizeof cnt);
  fake_ns = 1000000000;
  trak_clock_set_fake(fake_clock);
  trak_session *s =
      start_text("data_sources { config { name: \"test.ds\" } } incremental_state_config { "
                 "clear_period_ms: 1 }");
  static const char *names[] = {"a", "b", "c"};
  for (int i = 0; i < 30; i++) {
    fake_ns += 400000; /* a clear every 2.5 packets */
    TRAK_DATA_SOURCE_TRACE(ds_test, trace_one, (void *)names[i % 3]);
  }
  trak_session_stop(s, NULL);
  trak_clock_set_fake(NULL);
  pkt_info p[64];
  int n = read_trace(s, p, 64), clears = 0;
  assert_int_equal(n, 30);
  for (int i = 0; i < n; i++) {
    assert_string_equal(p[i].name, names[i % 3]);
    clears += (p[i].flags & TRAK_PB_TracePacket_SEQ_INCREMENTAL_STATE_CLEARED) != 0;
  }
  assert_in_range(clears, 10, 13);
  assert_int_equal(cnt.incr_new, clears);
  /* Each clear but the first freed the previous state; rebinding this thread's writer may
  ** also have freed the state an earlier test's session left in it. */
  assert_in_range(cnt.incr_free, clears - 1, clears);
  trak_session_free(s);
}

/* Configured from the C struct. An unregistered data source name fails the start, naming it
** (a typo would otherwise record nothing, silently); without it the session records. */
static void test_struct_config(void **state) {
  memset(&cnt, 0, sizeof cnt);
  trak_session_data_source dss[2] = {{"no.such.ds", NULL, NULL, 0}, {"test.ds", NULL, NULL, 0}};
  trak_session_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.data_sources = dss;
  cfg.n_data_sources = 2;
  trak_session *s;
  trak_error err = {0};
  assert_int_equal(trak_session_new(&cfg, &s, NULL), 0);
  assert_int_equal(trak_session_start(s, &err), TRAK_EINVAL);
  assert_non_null(strstr(err.message, "\"no.such.ds\" is not registered"));
  assert_string_equal(cnt.config_name, ""); /* nothing was set up */
  trak_session_free(s);
  cfg.data_sources = dss + 1;
  cfg.n_data_sources = 1;
  assert_int_equal(trak_session_new(&cfg, &s, NULL), 0);
  assert_int_equal(trak_session_start(s, NULL), 0);
  assert_string_equal(cnt.config_name, "test.ds");
  TRAK_DATA_SOURCE_TRACE(ds_test, trace_one, "x");
  trak_session_stop(s, NULL);
  pkt_info p[4];
  assert_int_equal(read_trace(s, p, 4), 1);
  trak_session_free(s);
}

static void test_register_errors(void **state) {
  trak_data_source_desc d;
  memset(&d, 0, sizeof d);
  trak_data_source *out;
  trak_error err;
  d.name = "test.ds";
  assert_int_equal(trak_data_source_register(&d, &out, &err), TRAK_EINVAL);
  assert_non_null(strstr(err.message, "already registered"));
  d.name = "track_event";
  assert_int_equal(trak_data_source_register(&d, &out, &err), TRAK_EINVAL);
  d.name = "";
  assert_int_equal(trak_data_source_register(&d, &out, &err), TRAK_EINVAL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_lifecycle_and_packets),
      cmocka_unit_test(test_two_instances_and_refusal),
      cmocka_unit_test(test_interning_across_clears),
      cmocka_unit_test(test_struct_config),
      cmocka_unit_test(test_register_errors),
  };
  return cmocka_run_group_tests(tests, group_setup, NULL);
}
