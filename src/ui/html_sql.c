/*
** This file holds what lets `trak html`'s report run SQL with no server: the trace's tables
** exported to a SQLite database (trak_processor_export) and gzip'ed, and sql.js (SQLite compiled
** to WebAssembly, ui/vendor/), all inlined in the page as base64 so that the page opens the
** database itself, from disk, with no request.
*/
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "ui/ui.h"

/* Appends `n` bytes as base64 (RFC 4648, padded). */
static void put_base64(trak_ui_buf *out, const unsigned char *v, size_t n) {
  static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  char chunk[4096];
  size_t used = 0;
  for (size_t i = 0; i < n; i += 3) {
    uint32_t w = (uint32_t)v[i] << 16 | (i + 1 < n ? (uint32_t)v[i + 1] << 8 : 0) |
                 (i + 2 < n ? v[i + 2] : 0);
    chunk[used++] = abc[w >> 18 & 63];
    chunk[used++] = abc[w >> 12 & 63];
    chunk[used++] = i + 1 < n ? abc[w >> 6 & 63] : '=';
    chunk[used++] = i + 2 < n ? abc[w & 63] : '=';
    if (used == sizeof chunk) trak__ui_put(out, chunk, used), used = 0;
  }
  trak__ui_put(out, chunk, used);
}

/* Reads the file at `path` gzip'ed into `gz`. Returns 0, TRAK_EIO or TRAK_ENOMEM. */
static int gzip_file(const char *path, trak_ui_buf *gz, size_t *raw, trak_error *err) {
  FILE *f = fopen(path, "rb");
  if (!f) return trak_error_set(err, TRAK_EIO, "%s: cannot read the exported tables", path);
  z_stream z = {0};
  if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    fclose(f);
    return trak_error_set(err, TRAK_ENOMEM, "out of memory");
  }
  unsigned char in[1 << 16], zout[1 << 16];
  int flush = Z_NO_FLUSH, rc = 0;
  *raw = 0;
  while (!rc && flush != Z_FINISH) {
    size_t n = fread(in, 1, sizeof in, f);
    *raw += n;
    flush = n < sizeof in ? Z_FINISH : Z_NO_FLUSH;
    z.next_in = in, z.avail_in = (uInt)n;
    do {
      z.next_out = zout, z.avail_out = sizeof zout;
      deflate(&z, flush);
      trak__ui_put(gz, (const char *)zout, sizeof zout - z.avail_out);
    } while (z.avail_out == 0);
    if (ferror(f)) rc = trak_error_set(err, TRAK_EIO, "%s: read error", path);
    if (gz->oom) rc = trak_error_set(err, TRAK_ENOMEM, "out of memory");
  }
  deflateEnd(&z);
  fclose(f);
  return rc;
}

/* Exports `p`'s tables to a temporary file and gzips them into `gz` (*raw: the file's size). */
static int export_gzip(trak_processor *p, trak_ui_buf *gz, size_t *raw, trak_error *err) {
  const char *dir = getenv("TMPDIR");
  char path[4096];
  snprintf(path, sizeof path, "%s/trak-html-XXXXXX", dir && *dir ? dir : "/tmp");
  int fd = mkstemp(path);
  if (fd < 0) return trak_error_set(err, TRAK_EIO, "%s: cannot create a temporary file", path);
  close(fd);
  int rc = trak_processor_export(p, path, err);
  if (!rc) rc = gzip_file(path, gz, raw, err);
  unlink(path);
  return rc;
}

int trak__ui_html_sql(trak_processor *p, size_t max_bytes, trak_ui_buf *out, const char **note,
                      trak_error *err) {
  static char message[320];
  *note = NULL;
  message[0] = 0;
  const trak_ui_asset *js = trak__ui_asset_find("sql-wasm.js");
  const trak_ui_asset *wasm = trak__ui_asset_find("sql-wasm.wasm.gz");
  if (!js || !wasm) return trak_error_set(err, TRAK_ENOTFOUND, "sql.js is not built in");
  if (!max_bytes) {
    trak__ui_puts(out, "<script>window.TRAK_SQL = {\"error\":\"this report was written with "
                       "--max-sql-mb 0: no tables; open the trace with `trak ui` for SQL\"};"
                       "</script>\n");
    return 0;
  }
  trak_ui_buf gz = {0};
  size_t raw = 0;
  trak_error why = {0};
  /* The tables take about as much as the trace or more: a trace over the cap is not exported
  ** just to find that out (an export of 2M events takes seconds). */
  uint64_t fed = trak_processor_byte_count(p);
  int rc = fed > max_bytes ? 0 : export_gzip(p, &gz, &raw, &why);
  if (fed > max_bytes) {
    snprintf(message, sizeof message,
             "the trace (%.1f MB) is over --max-sql-mb %.0f: the report has no SQL; `trak ui` "
             "runs it",
             fed / 1e6, max_bytes / 1048576.0);
  } else if (rc && rc != TRAK_ENOMEM) { /* e.g. a processor whose SQL is restricted cannot ATTACH */
    snprintf(message, sizeof message,
             "the tables could not be exported (%.200s): the report has no "
             "SQL; `trak ui` runs it",
             why.message);
    rc = 0;
  } else if (!rc && raw > max_bytes) {
    snprintf(message, sizeof message,
             "the tables (%.1f MB) are over --max-sql-mb %.0f: the report has no SQL; `trak ui` "
             "runs it",
             raw / 1e6, max_bytes / 1048576.0);
  } else if (rc) {
    *err = why;
  }
  if (message[0] && !rc) {
    *note = message;
    trak__ui_puts(out, "<script>window.TRAK_SQL = {\"error\":");
    trak__ui_json_str(out, message);
    trak__ui_puts(out, "};</script>\n");
  } else if (!rc) {
    trak__ui_puts(out, "<script>window.TRAK_SQL = {\"wasm\":\"");
    put_base64(out, wasm->data, wasm->len);
    trak__ui_printf(out, "\",\"bytes\":%zu,\"db\":\"", raw);
    put_base64(out, (const unsigned char *)gz.s, gz.len);
    trak__ui_puts(out, "\"};</script>\n<script>\n");
    trak__ui_put(out, (const char *)js->data, js->len);
    trak__ui_puts(out, "</script>\n");
  }
  trak__ui_buf_free(&gz);
  if (!rc && out->oom) rc = trak_error_set(err, TRAK_ENOMEM, "out of memory");
  return rc;
}
