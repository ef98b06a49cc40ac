/*
** libFuzzer target for `trak probes`' ring buffer decoder (src/probes/ftrace_page.c) and what
** builds bundles from it (ftrace_bundle.c), the code that reads kernel bytes. The first byte
** picks the mode: even, the rest is a buffer page decoded against fixed formats (sched_switch,
** sched_waking, print with its tail string, an event with a __data_loc string and one written
** generically), with compact sched when bit 1 is set; odd, the rest is a format file (or, with
** bit 1, a header_page) to parse. The ids are those of a 6.18 x86-64 kernel, whose pages seed the
** corpus. No input may read outside itself; every packet the bundler
** hands out must decode as protobuf, down to each event's fields.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "probes/ftrace.h"
#include "trak/protos.h"

static const char *const FORMATS[] = {
    "name: sched_switch\nID: 372\nformat:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
    "\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
    "\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
    "\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
    "\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
    "\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
    "\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
    "\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n",
    "name: sched_waking\nID: 375\nformat:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
    "\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
    "\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
    "\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
    "\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n",
    "name: print\nID: 5\nformat:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
    "\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
    "\tfield:char buf[];\toffset:16;\tsize:0;\tsigned:0;\n",
    "name: irq_handler_entry\nID: 225\nformat:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
    "\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
    "\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:0;\n",
    "name: sched_stat_runtime\nID: 363\nformat:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
    "\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
    "\tfield:u64 runtime;\toffset:24;\tsize:8;\tsigned:0;\n"
    "\tfield:unsigned long args[2];\toffset:32;\tsize:16;\tsigned:0;\n",
};
#define NFORMATS (sizeof FORMATS / sizeof *FORMATS)

static trak__ftrace_format formats[NFORMATS];
static trak__ftrace_table table;

/* What a nested message of the walk is. */
enum { PACKET, BUNDLE, EVENT, MEMBER, GENERIC, LEAF };

/* Decodes a message of kind `k` and every nested message it holds; aborts when the bytes
** the encoder wrote do not decode. */
static void walk(const uint8_t *data, size_t len, int k) {
  trak_pb_decoder d;
  trak_pb_field f;
  trak_pb_decoder_init(&d, data, len);
  int r;
  while ((r = trak_pb_decoder_next(&d, &f)) == 1) {
    if (f.wire_type != TRAK_PB_WIRE_LEN) continue;
    if (k == PACKET && f.number == TRAK_PB_TracePacket_ftrace_events) walk(f.data, f.len, BUNDLE);
    if (k == BUNDLE && f.number == TRAK_PB_FtraceEventBundle_event) walk(f.data, f.len, EVENT);
    if (k == BUNDLE && f.number == TRAK_PB_FtraceEventBundle_compact_sched)
      walk(f.data, f.len, LEAF);
    if (k == EVENT) /* every LEN member of FtraceEvent is an event message */
      walk(f.data, f.len, f.number == TRAK_PB_FtraceEvent_generic ? GENERIC : MEMBER);
    if (k == GENERIC && f.number == TRAK_PB_GenericFtraceEvent_field) walk(f.data, f.len, LEAF);
  }
  if (r < 0 || d.error) abort();
}

static void on_packet(void *user, const uint8_t *data, size_t len) {
  (void)user;
  if (len > TRAK__BUNDLE_MAX + 4096) abort(); /* a bundle must fit a chunk */
  walk(data, len, PACKET);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!table.nids) {
    for (size_t i = 0; i < NFORMATS; i++) {
      if (trak__ftrace_format_parse(FORMATS[i], strlen(FORMATS[i]), &formats[i], NULL)) abort();
      trak__ftrace_format_translate(&formats[i]);
      if (trak__ftrace_table_add(&table, &formats[i])) abort();
    }
  }
  if (size < 1) return 0;
  if (data[0] & 1) {
    char *text = malloc(size); /* exactly the input, unterminated, so overreads are caught */
    if (!text) return 0;
    memcpy(text, data + 1, size - 1);
    if (data[0] & 2) {
      trak__ftrace_page_layout l;
      if (trak__ftrace_header_parse(text, size - 1, &l, NULL) == 0 &&
          (l.data_offset >= l.page_size || l.commit_offset + l.commit_size > l.data_offset))
        abort();
    } else {
      trak__ftrace_format f;
      if (trak__ftrace_format_parse(text, size - 1, &f, NULL) == 0) {
        trak__ftrace_format_translate(&f);
        if (f.nfields > TRAK__FTRACE_MAX_FIELDS) abort();
      }
    }
    free(text);
    return 0;
  }
  trak__ftrace_page_layout l;
  trak__ftrace_page_layout_default(&l);
  table.compact_sched = (data[0] >> 1) & 1;
  trak__ftrace_bundler b;
  trak__ftrace_bundler_init(&b, &table, 0, on_packet, NULL);
  uint8_t *page = malloc(size - 1 ? size - 1 : 1);
  if (page) {
    memcpy(page, data + 1, size - 1);
    int st = trak__ftrace_bundler_page(&b, &l, page, size - 1);
    if (st < TRAK_PB_FTRACE_STATUS_OK || st > TRAK_PB_FTRACE_STATUS_INVALID_EVENT) abort();
    trak__ftrace_bundler_flush(&b);
    free(page);
  }
  trak__ftrace_bundler_free(&b);
  return 0;
}
