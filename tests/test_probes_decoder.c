/*
** Tests of `trak probes`' ftrace decoding without a kernel (src/probes/ftrace_format.c,
** ftrace_page.c, ftrace_bundle.c): format and header_page files parsed, hand-built ring buffer
** pages (time extends, padding, long records, absolute timestamps, a missed-events flag,
** truncation) decoded to the right records and timestamps, and records written as
** FtraceEvent's typed member, as GenericFtraceEvent, and as CompactSched columns.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "probes/ftrace.h"
#include "trak/protos.h"

static const char SWITCH_FORMAT[] =
    "name: sched_switch\nID: 7\nformat:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
    "\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
    "\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
    "\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
    "\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
    "\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
    "\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
    "\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"
    "print fmt: \"prev_comm=%s\", REC->prev_comm\n";

static const char CUSTOM_FORMAT[] = /* an event FtraceEvent has no member for */
    "name: my_event\nID: 9\nformat:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
    "\tfield:int delta;\toffset:8;\tsize:4;\tsigned:1;\n"
    "\tfield:__data_loc char[] label;\toffset:12;\tsize:4;\tsigned:0;\n";

static const char HEADER_PAGE[] = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
                                  "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
                                  "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
                                  "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

/* A page under construction. */
typedef struct page {
  uint8_t b[4096];
  size_t n; /* bytes of records */
} page;

static void page_init(page *p, uint64_t base) {
  memset(p, 0, sizeof *p);
  memcpy(p->b, &base, 8);
}
static void put32(page *p, uint32_t v) {
  memcpy(p->b + 16 + p->n, &v, 4);
  p->n += 4;
}
static void put_bytes(page *p, const void *d, size_t n) {
  memcpy(p->b + 16 + p->n, d, n);
  p->n += n;
}
static void page_end(page *p, int lost) {
  uint64_t commit = p->n | (lost ? 1ull << 31 : 0);
  memcpy(p->b + 8, &commit, 8);
}

/* A sched_switch payload (64 bytes) from pid `prev` to `next`. */
static void switch_rec(uint8_t *r, int32_t prev, int32_t next, int64_t state) {
  memset(r, 0, 64);
  uint16_t id = 7;
  memcpy(r, &id, 2);
  memcpy(r + 4, &prev, 4);
  snprintf((char *)r + 8, 16, "t%d", prev);
  memcpy(r + 24, &prev, 4);
  int32_t prio = 120;
  memcpy(r + 28, &prio, 4);
  memcpy(r + 32, &state, 8);
  snprintf((char *)r + 40, 16, "t%d", next);
  memcpy(r + 56, &next, 4);
  memcpy(r + 60, &prio, 4);
}

static trak__ftrace_format fmt_switch, fmt_custom;
static trak__ftrace_table table;

static int setup(void **state) {
  (void)state;
  if (trak__ftrace_format_parse(SWITCH_FORMAT, strlen(SWITCH_FORMAT), &fmt_switch, NULL) ||
      trak__ftrace_format_parse(CUSTOM_FORMAT, strlen(CUSTOM_FORMAT), &fmt_custom, NULL))
    return -1;
  trak__ftrace_format_translate(&fmt_switch);
  trak__ftrace_format_translate(&fmt_custom);
  return trak__ftrace_table_add(&table, &fmt_switch) || trak__ftrace_table_add(&table, &fmt_custom);
}
static int teardown(void **state) {
  (void)state;
  trak__ftrace_table_free(&table);
  return 0;
}

static void parses_formats(void **state) {
  (void)state;
  assert_string_equal(fmt_switch.name, "sched_switch");
  assert_int_equal(fmt_switch.id, 7);
  assert_int_equal(fmt_switch.nfields, 7); /* the common_* fields are not payload */
  assert_int_equal(fmt_switch.pid_offset, 4);
  assert_int_equal(fmt_switch.fields[0].kind, TRAK__FT_CSTR);
  assert_string_equal(fmt_switch.fields[3].name, "prev_state");
  assert_int_equal(fmt_switch.fields[3].size, 8);
  assert_int_equal(fmt_switch.proto_event, TRAK_PB_FtraceEvent_sched_switch);
  assert_int_equal(fmt_switch.fields[3].proto_number, TRAK_PB_SchedSwitchFtraceEvent_prev_state);
  assert_int_equal(fmt_switch.compact, 1);
  assert_int_equal(fmt_custom.proto_event, 0); /* generic */
  assert_int_equal(fmt_custom.fields[1].kind, TRAK__FT_DATALOC);
  trak__ftrace_page_layout l;
  assert_int_equal(trak__ftrace_header_parse(HEADER_PAGE, strlen(HEADER_PAGE), &l, NULL), 0);
  assert_int_equal(l.commit_size, 8);
  assert_int_equal(l.data_offset, 16);
  assert_int_equal(l.page_size, 4096);
  trak__ftrace_format bad;
  trak_error err = {0};
  assert_int_equal(trak__ftrace_format_parse("name: x\nformat:\n", 16, &bad, &err), TRAK_EFORMAT);
  assert_non_null(strstr(err.message, "ID"));
  assert_int_equal(trak__ftrace_header_parse("nothing", 7, &l, NULL), TRAK_EFORMAT);
}

typedef struct seen {
  int n;
  uint64_t ts[16];
  size_t len[16];
} seen;
static void on_record(void *user, uint64_t ts, const uint8_t *rec, size_t len) {
  (void)rec;
  seen *s = user;
  if (s->n < 16) {
    s->ts[s->n] = ts;
    s->len[s->n] = len;
  }
  s->n++;
}

static void decodes_page_records(void **state) {
  (void)state;
  trak__ftrace_page_layout l;
  trak__ftrace_page_layout_default(&l);
  page p;
  page_init(&p, 1000);
  uint8_t r[64];
  switch_rec(r, 1, 2, 1);
  put32(&p, 16u << 5 | 16); /* 64 bytes of data, +16 ns */
  put_bytes(&p, r, 64);
  put32(&p, 5u << 5 | 30); /* time extend: +5 + (3 << 27) */
  put32(&p, 3);
  put32(&p, 0u << 5 | 0); /* a long record: its length word first */
  put32(&p, 64 + 4);
  put_bytes(&p, r, 64);
  put32(&p, 7u << 5 | 29); /* padding of 8 bytes after its header, +7 ns */
  put32(&p, 8);
  put32(&p, 0);
  put32(&p, 11u << 5 | 31); /* absolute timestamp 11 + (2 << 27) */
  put32(&p, 2);
  put32(&p, 16u << 5 | 16);
  put_bytes(&p, r, 64);
  page_end(&p, 0);
  seen s = {0};
  trak__ftrace_page_info info;
  assert_int_equal(trak__ftrace_page_parse(&l, p.b, sizeof p.b, on_record, &s, &info),
                   TRAK_PB_FTRACE_STATUS_OK);
  assert_int_equal(s.n, 3);
  assert_int_equal(s.ts[0], 1016);
  assert_int_equal(s.ts[1], 1016 + 5 + (3ull << 27));
  assert_int_equal(s.len[1], 64);
  assert_int_equal(s.ts[2], 11 + (2ull << 27) + 16); /* the record after it is +16 */
  assert_int_equal(info.records, 3);
  assert_false(info.lost_events);

  /* A record running past the committed size stops the page with a status. */
  page_init(&p, 0);
  put32(&p, 16u << 5 | 16);
  put_bytes(&p, r, 32);
  page_end(&p, 1);
  s.n = 0;
  assert_int_equal(trak__ftrace_page_parse(&l, p.b, sizeof p.b, on_record, &s, &info),
                   TRAK_PB_FTRACE_STATUS_ABI_END_OVERFLOW);
  assert_int_equal(s.n, 0);
  assert_true(info.lost_events);
  /* A commit larger than the page, and a page shorter than its header. */
  uint64_t big = 5000;
  memcpy(p.b + 8, &big, 8);
  assert_int_equal(trak__ftrace_page_parse(&l, p.b, sizeof p.b, on_record, &s, &info),
                   TRAK_PB_FTRACE_STATUS_ABI_INVALID_PAGE_HEADER);
  assert_int_equal(trak__ftrace_page_parse(&l, p.b, 10, on_record, &s, &info),
                   TRAK_PB_FTRACE_STATUS_ABI_INVALID_PAGE_HEADER);
}

static uint8_t out[8192];
static size_t out_len;
static int out_packets;
static void on_packet(void *user, const uint8_t *d, size_t n) {
  (void)user;
  if (n <= sizeof out) memcpy(out, d, n);
  out_len = n;
  out_packets++;
}

/* The first field numbered `num` of [d, d + n) (LEN or varint) into *f; 0 when absent. */
static int find(const uint8_t *d, size_t n, uint32_t num, trak_pb_field *f) {
  trak_pb_decoder dec;
  trak_pb_decoder_init(&dec, d, n);
  while (trak_pb_decoder_next(&dec, f) == 1)
    if (f->number == num) return 1;
  return 0;
}

static void writes_bundles(void **state) {
  (void)state;
  trak__ftrace_page_layout l;
  trak__ftrace_page_layout_default(&l);
  page p;
  page_init(&p, 500);
  uint8_t r[64], c[24] = {0};
  switch_rec(r, 10, 20, 1);
  put32(&p, 16u << 5 | 16);
  put_bytes(&p, r, 64);
  uint16_t id = 9;
  int32_t pid = 33, delta = -4;
  uint32_t loc = 5u << 16 | 16; /* "hello" at offset 16 */
  memcpy(c, &id, 2);
  memcpy(c + 4, &pid, 4);
  memcpy(c + 8, &delta, 4);
  memcpy(c + 12, &loc, 4);
  memcpy(c + 16, "hello", 5);
  put32(&p, 6u << 5 | 6);
  put_bytes(&p, c, 24);
  page_end(&p, 1);

  for (int compact = 0; compact < 2; compact++) {
    table.compact_sched = compact;
    trak__ftrace_bundler b;
    trak__ftrace_bundler_init(&b, &table, 3, on_packet, NULL);
    out_packets = 0;
    assert_int_equal(trak__ftrace_bundler_page(&b, &l, p.b, sizeof p.b), TRAK_PB_FTRACE_STATUS_OK);
    trak__ftrace_bundler_flush(&b);
    assert_int_equal(out_packets, 1);
    assert_int_equal(b.events_total, 2);
    trak_pb_field bundle, f, ev, m;
    assert_true(find(out, out_len, TRAK_PB_TracePacket_ftrace_events, &bundle));
    assert_true(find(bundle.data, bundle.len, TRAK_PB_FtraceEventBundle_cpu, &f));
    assert_int_equal(f.value, 3);
    assert_true(find(bundle.data, bundle.len, TRAK_PB_FtraceEventBundle_lost_events, &f));
    assert_true(find(bundle.data, bundle.len, TRAK_PB_FtraceEventBundle_event, &ev));
    if (!compact) { /* the switch first, typed */
      assert_true(find(ev.data, ev.len, TRAK_PB_FtraceEvent_timestamp, &f));
      assert_int_equal(f.value, 516);
      assert_true(find(ev.data, ev.len, TRAK_PB_FtraceEvent_pid, &f));
      assert_int_equal(f.value, 10);
      assert_true(find(ev.data, ev.len, TRAK_PB_FtraceEvent_sched_switch, &m));
      assert_true(find(m.data, m.len, TRAK_PB_SchedSwitchFtraceEvent_next_comm, &f));
      assert_int_equal(f.len, 3);
      assert_memory_equal(f.data, "t20", 3);
      assert_true(find(m.data, m.len, TRAK_PB_SchedSwitchFtraceEvent_prev_state, &f));
      assert_int_equal(f.value, 1);
    } else { /* the switch in columns, the other event alone in `event` */
      trak_pb_field cs;
      assert_true(find(bundle.data, bundle.len, TRAK_PB_FtraceEventBundle_compact_sched, &cs));
      assert_true(find(cs.data, cs.len, TRAK_PB_FtraceEventBundle_CompactSched_intern_table, &f));
      assert_memory_equal(f.data, "t20", 3);
      assert_true(
          find(cs.data, cs.len, TRAK_PB_FtraceEventBundle_CompactSched_switch_timestamp, &f));
      assert_int_equal(f.len, 2); /* one packed varint: 516 */
      assert_int_equal((f.data[0] & 0x7f) | f.data[1] << 7, 516);
      assert_true(
          find(cs.data, cs.len, TRAK_PB_FtraceEventBundle_CompactSched_switch_next_pid, &f));
      assert_int_equal(f.len, 1);
      assert_int_equal(f.data[0], 20);
      assert_false(find(ev.data, ev.len, TRAK_PB_FtraceEvent_sched_switch, &m));
    }
    /* The generic event: its name and fields by name, the string from its __data_loc. */
    trak_pb_decoder dec;
    trak_pb_decoder_init(&dec, bundle.data, bundle.len);
    int generic = 0;
    while (trak_pb_decoder_next(&dec, &ev) == 1) {
      if (ev.number != TRAK_PB_FtraceEventBundle_event ||
          !find(ev.data, ev.len, TRAK_PB_FtraceEvent_generic, &m))
        continue;
      generic = 1;
      assert_true(find(m.data, m.len, TRAK_PB_GenericFtraceEvent_event_name, &f));
      assert_memory_equal(f.data, "my_event", 8);
      trak_pb_decoder fd;
      trak_pb_field x, v;
      trak_pb_decoder_init(&fd, m.data, m.len);
      int fields = 0;
      while (trak_pb_decoder_next(&fd, &x) == 1) {
        if (x.number != TRAK_PB_GenericFtraceEvent_field) continue;
        fields++;
        if (find(x.data, x.len, TRAK_PB_GenericFtraceEvent_Field_int_value, &v))
          assert_int_equal((int64_t)v.value, -4);
        else if (find(x.data, x.len, TRAK_PB_GenericFtraceEvent_Field_str_value, &v))
          assert_memory_equal(v.data, "hello", 5);
        else
          fail();
      }
      assert_int_equal(fields, 2);
    }
    assert_true(generic);
    trak__ftrace_bundler_free(&b);
  }
  table.compact_sched = 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(parses_formats),
      cmocka_unit_test(decodes_page_records),
      cmocka_unit_test(writes_bundles),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
