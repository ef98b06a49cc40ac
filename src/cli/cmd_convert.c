/*
** `trak convert IN OUT`: rewrites a trace in another format. The input format is recognised
** from content (gzip undone first); the output format comes from --to or OUT's extension.
*/
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "processor/export/json_export.h"
#include "processor/export/pb_export.h"
#include "processor/read/trace_file.h"
#include "trak/processor.h"
#include "trak/pbtxt.h"

static const char CONVERT_HELP[] =
    "usage: trak convert [--to pb|pbtxt|json] [--from csv|jsonl] [--keep-going] [--seed N]\n"
    "                    IN OUT\n"
    "\n"
    "Converts a trace between binary protobuf (.pb) and protobuf text format (.pbtxt).\n"
    "IN may be gzip-compressed; its format is detected from its content. The output format\n"
    "is taken from --to, else from OUT's extension (.pb .pftrace .perfetto-trace -> pb,\n"
    ".pbtxt .textproto .txt -> pbtxt, .json -> json). OUT may be - for stdout.\n"
    "\n"
    "JSON output is the trace-event JSON Object Format (docs/formats.md): any trace trak\n"
    "reads, JSON traces included, is imported and its tables written out; kernel (ftrace)\n"
    "events go into systemTraceEvents as systrace text, as Perfetto's traceconv writes them.\n"
    "A JSON trace converts to protobuf the same way: imported, then its tables written as\n"
    "track events.\n"
    "\n"
    "IN may also be tabular events, CSV with a header or JSON Lines (by the extension .csv,\n"
    ".jsonl or .ndjson, or by content, or as --from says; IN - is stdin with --from),\n"
    "written into a trace as docs/writer.md describes.\n"
    "They are streamed: read, converted and written row by row. A bad row stops the\n"
    "conversion and no OUT file is written; with --keep-going it is reported and skipped.\n"
    "Each conversion gives its trace a random packet sequence id and track uuids, so that\n"
    "converted traces can be concatenated; --seed N derives them from N instead, for\n"
    "byte-for-byte reproducible output.\n";

/* Writes the binary trace `bin` to `out_path` in `format`. */
static int write_as(const char *out_path, trak_trace_format format, const uint8_t *bin, size_t len,
                    trak_error *err) {
  if (format == TRAK_FORMAT_PROTO) return trak_cli_write_file(out_path, bin, len, err);
  trak_pb_buf text;
  trak_pb_buf_init_heap(&text);
  int rc = trak_pbtxt_print("Trace", bin, len, &text, err);
  if (!rc) rc = trak_cli_write_file(out_path, text.start, trak_pb_buf_len(&text), err);
  trak_pb_buf_free(&text);
  return rc;
}

/* Imports IN (a trace, or events already converted to the binary trace `bin`) and writes
** its tables as a JSON trace. */
static int convert_to_json(const char *in, const uint8_t *bin, size_t len, const char *out_path) {
  trak_processor *p = NULL;
  trak_error err = {0};
  int rc;
  if (bin) {
    rc = trak_processor_new(NULL, &p, &err);
    if (!rc) rc = trak_processor_feed(p, bin, len, &err);
    if (!rc) rc = trak_processor_finish(p, &err);
    if (rc) {
      trak_processor_free(p);
      return trak_cli_fail("convert", &err);
    }
  } else if ((rc = trak_cli_open_trace("convert", in, &p))) {
    return rc;
  }
  FILE *f = strcmp(out_path, "-") ? fopen(out_path, "w") : stdout;
  uint64_t dropped = 0, dropped_ftrace = 0;
  if (!f) {
    rc = trak_error_set(&err, TRAK_EIO, "%s: cannot create", out_path);
  } else {
    rc = trak__json_export(p, f, &dropped, &dropped_ftrace, &err);
    if (f != stdout && fclose(f) && !rc)
      rc = trak_error_set(&err, TRAK_EIO, "%s: write failed", out_path);
  }
  trak_processor_free(p);
  if (rc) return trak_cli_fail("convert", &err);
  if (dropped)
    fprintf(stderr,
            "trak convert: %llu flow(s) touch slices JSON flow events cannot bind to "
            "(zero-length or not on a thread); not written\n",
            (unsigned long long)dropped);
  if (dropped_ftrace)
    fprintf(stderr,
            "trak convert: %llu ftrace event(s) before the import's crop of kernel data, or "
            "with a negative time or a name text cannot hold; not written\n",
            (unsigned long long)dropped_ftrace);
  return 0;
}

int trak_cli_json_to_pb(const char *cmd, const char *in, trak_trace_format format,
                        const char *out_path) {
  trak_processor *p = NULL;
  int rc = trak_cli_open_trace(cmd, in, &p);
  if (rc) return rc;
  trak_error err = {0};
  trak_pb_buf bin;
  trak_pb_buf_init_heap(&bin);
  rc = trak__pb_export(p, &bin, &err);
  trak_processor_free(p);
  if (!rc) rc = write_as(out_path, format, bin.start, trak_pb_buf_len(&bin), &err);
  trak_pb_buf_free(&bin);
  return rc ? trak_cli_fail(cmd, &err) : 0;
}

/* Copies the binary or text trace IN to OUT in `format`, packet by packet. */
static int convert_pb(const char *in, trak_trace_format format, const char *out_path) {
  trak_cli_trace_out out;
  trak_error err = {0};
  if (trak_cli_trace_out_open(&out, out_path, format, &err)) return trak_cli_fail("convert", &err);
  trak_trace_format in_format;
  int rc = trak_cli_read_packets("convert", in, trak_cli_trace_out_field, &out, &in_format);
  if (trak__format_imported(in_format)) out.failed = 1; /* nothing written: remove the file */
  int wrc = trak_cli_trace_out_close(&out, &err);
  if (rc) return rc;
  if (trak__format_imported(in_format)) return trak_cli_json_to_pb("convert", in, format, out_path);
  return wrc ? trak_cli_fail("convert", &err) : 0;
}

int trak_cli_convert(int argc, char **argv) {
  const char *to = NULL, *from = NULL, *paths[2];
  int n_paths = 0;
  trak_cli_events_opts events = {0};
  for (int i = 1; i < argc; i++) {
    if (trak_cli_is_help(argv[i])) {
      fputs(CONVERT_HELP, stdout);
      return 0;
    }
    if (!strcmp(argv[i], "--to") && i + 1 < argc)
      to = argv[++i];
    else if (!strncmp(argv[i], "--to=", 5))
      to = argv[i] + 5;
    else if (!strcmp(argv[i], "--from") && i + 1 < argc)
      from = argv[++i];
    else if (!strncmp(argv[i], "--from=", 7))
      from = argv[i] + 7;
    else if (!strcmp(argv[i], "--keep-going"))
      events.keep_going = 1;
    else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
      char *end;
      errno = 0;
      events.seed = strtoull(argv[++i], &end, 0);
      if (errno || end == argv[i] || *end || argv[i][0] == '-')
        return trak_cli_failf("convert", "--seed takes an unsigned number, not '%s'", argv[i]);
      events.seeded = 1;
    } else if (argv[i][0] == '-' && argv[i][1])
      return trak_cli_unknown_option("convert", argv[i]);
    else if (n_paths < 2)
      paths[n_paths++] = argv[i];
    else
      return trak_cli_failf("convert", "too many arguments (see --help)");
  }
  if (n_paths != 2) return trak_cli_failf("convert", "expected IN and OUT (see --help)");

  trak_trace_format out_format = TRAK_FORMAT_UNKNOWN;
  if (to && !strcmp(to, "pb"))
    out_format = TRAK_FORMAT_PROTO;
  else if (to && !strcmp(to, "pbtxt"))
    out_format = TRAK_FORMAT_PBTXT;
  else if (to && !strcmp(to, "json"))
    out_format = TRAK_FORMAT_JSON;
  else if (to)
    return trak_cli_failf("convert", "--to takes pb or pbtxt or json, not '%s'", to);
  else
    out_format = trak__format_from_name(paths[1]);
  if (out_format == TRAK_FORMAT_UNKNOWN)
    return trak_cli_failf(
        "convert", "cannot tell the output format from '%s'; use --to pb|pbtxt|json", paths[1]);

  trak_error err = {0};
  uint8_t *bin;
  size_t len;
  int rc;
  trak_events_format events_format;
  if (!from)
    events_format = trak_cli_events_format(paths[0]);
  else if (!strcmp(from, "csv"))
    events_format = TRAK_EVENTS_CSV;
  else if (!strcmp(from, "jsonl"))
    events_format = TRAK_EVENTS_JSONL;
  else
    return trak_cli_failf("convert", "--from takes csv or jsonl, not '%s'", from);
  if (events_format && out_format == TRAK_FORMAT_JSON) {
    if (trak_cli_load_events(paths[0], events_format, &events, &bin, &len, &err))
      return trak_cli_fail("convert", &err);
    rc = convert_to_json(paths[0], bin, len, paths[1]);
    free(bin);
    return rc;
  }
  if (events_format) {
    rc = trak_cli_convert_events(paths[0], events_format, paths[1], out_format, &events, &err);
    return rc ? trak_cli_fail("convert", &err) : 0;
  }
  if (events.seeded)
    return trak_cli_failf("convert", "--seed applies to tabular events (CSV, JSON Lines) only");
  if (out_format == TRAK_FORMAT_JSON) return convert_to_json(paths[0], NULL, 0, paths[1]);
  return convert_pb(paths[0], out_format, paths[1]);
}
