/*
** This file holds the prelude's C parts, there without an INCLUDE as in Perfetto: the tables
** only the importer can fill (_trace_bounds, made by trace_bounds.c, and __intrinsic_metadata),
** and the functions regexp,
** regexp_replace_simple, regexp_extract, unhex, str_split, slice_is_ancestor, the clock conversions
** TO_REALTIME,
** TO_MONOTONIC, ABS_TIME_STR, TO_TIMECODE and __intrinsic_arg_set_to_json. The SQL parts
** (trace_bounds, metadata, stats, trace_start(), ...) are the modules under stdlib/prelude.
*/
#define _GNU_SOURCE /* gmtime_r */
#include <inttypes.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "processor/read/trace_file.h"
#include "processor/sql/perfetto_sql/psql.h"
#include "processor/sql/stack_profile_tables.h"
#include "processor/tables/arg_value.h"

enum { CLOCK_REALTIME_ID = 1, CLOCK_MONOTONIC_ID = 3 };

/* ---- regular expressions ---------------------------------------------------------------- */

static void regex_free(void *v) {
  regfree(v);
  free(v);
}

/* The compiled pattern of argument `i`, cached by SQLite for the statement; NULL (with the
** error set) on a bad pattern. */
static regex_t *compiled(sqlite3_context *ctx, sqlite3_value **argv, int i, int icase) {
  regex_t *re = icase ? NULL : sqlite3_get_auxdata(ctx, i);
  if (re) return re;
  re = malloc(sizeof *re);
  const char *pattern = (const char *)sqlite3_value_text(argv[i]);
  int rc = re ? regcomp(re, pattern ? pattern : "", REG_EXTENDED | (icase ? REG_ICASE : 0)) : -1;
  if (rc) {
    char buf[200] = "out of memory";
    if (re) regerror(rc, re, buf, sizeof buf);
    char *m = sqlite3_mprintf("regexp: bad pattern '%s': %s", pattern ? pattern : "", buf);
    sqlite3_result_error(ctx, m, -1);
    sqlite3_free(m);
    free(re);
    return NULL;
  }
  if (icase) return re; /* the caller frees */
  sqlite3_set_auxdata(ctx, i, re, regex_free);
  return sqlite3_get_auxdata(ctx, i);
}

/* regexp(pattern, input [, flags]): whether the pattern matches part of the input. Flags: 'i'
** ignores case, 'c' respects it; the last one counts. */
static void fn_regexp(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL)
    return;
  int icase = 0;
  const char *flags = argc > 2 ? (const char *)sqlite3_value_text(argv[2]) : NULL;
  for (; flags && *flags; flags++)
    icase = *flags == 'i' ? 1 : *flags == 'c' ? 0 : icase;
  regex_t *re = compiled(ctx, argv, 0, icase);
  if (!re) return;
  const char *input = (const char *)sqlite3_value_text(argv[1]);
  sqlite3_result_int(ctx, regexec(re, input ? input : "", 0, NULL, 0) == 0);
  if (icase) regex_free(re);
}

/* regexp_replace_simple(input, regex, replacement): every match replaced by the text. */
static void fn_regexp_replace(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return;
  regex_t *re = compiled(ctx, argv, 1, 0);
  if (!re) return;
  const char *in = (const char *)sqlite3_value_text(argv[0]);
  const char *rep = (const char *)sqlite3_value_text(argv[2]);
  sqlite3_str *out = sqlite3_str_new(NULL);
  regmatch_t m;
  int flags = 0;
  /* As std::regex_replace: an empty match counts at every position, the end included
  ** (replacing '' by '|' in "ab" gives "|a|b|"). */
  while (regexec(re, in, 1, &m, flags) == 0) {
    sqlite3_str_append(out, in, (int)m.rm_so);
    sqlite3_str_appendall(out, rep ? rep : "");
    if (m.rm_eo == m.rm_so) { /* an empty match: step over one character */
      if (!in[m.rm_eo]) {
        in += m.rm_eo;
        break;
      }
      sqlite3_str_append(out, in + m.rm_eo, 1);
      in += m.rm_eo + 1;
    } else {
      in += m.rm_eo;
      if (!*in) break;
    }
    flags = REG_NOTBOL;
  }
  sqlite3_str_appendall(out, in);
  int len = sqlite3_str_length(out);
  sqlite3_result_text(ctx, sqlite3_str_finish(out), len, sqlite3_free);
}

/* regexp_extract(input, pattern): the text of the first match's first group, or of the whole
** match when the pattern has no group or the group took no part; NULL without a match. */
static void fn_regexp_extract(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return;
  regex_t *re = compiled(ctx, argv, 1, 0);
  if (!re) return;
  if (re->re_nsub > 1) {
    sqlite3_result_error(ctx, "regexp_extract: the pattern may have at most one group", -1);
    return;
  }
  const char *in = (const char *)sqlite3_value_text(argv[0]);
  regmatch_t m[2];
  if (regexec(re, in ? in : "", 2, m, 0)) return;
  regmatch_t *g = re->re_nsub == 1 && m[1].rm_so >= 0 ? &m[1] : &m[0];
  sqlite3_result_text(ctx, in + g->rm_so, (int)(g->rm_eo - g->rm_so), SQLITE_TRANSIENT);
}

/* unhex(text): the integer a hexadecimal string stands for, '0x' prefix and surrounding
** whitespace allowed ('  0Xf ' is 15). */
static void fn_unhex(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return;
  const char *s = (const char *)sqlite3_value_text(argv[0]), *p = s ? s : "";
  while (*p && strchr(" \t\n\r\f\v", *p))
    p++;
  if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) p += 2;
  uint64_t v = 0;
  int digits = 0;
  for (; (*p >= '0' && *p <= '9') || ((*p | 32) >= 'a' && (*p | 32) <= 'f'); p++, digits++) {
    if (digits == 16) break;
    v = v * 16 + (uint64_t)(*p <= '9' ? *p - '0' : (*p | 32) - 'a' + 10);
  }
  while (*p && strchr(" \t\n\r\f\v", *p))
    p++;
  if (!digits || *p) {
    char *m = sqlite3_mprintf("unhex: '%s' is not a hexadecimal number", s ? s : "");
    sqlite3_result_error(ctx, m, -1);
    sqlite3_free(m);
    return;
  }
  sqlite3_result_int64(ctx, (sqlite3_int64)v);
}

/* str_split(str, delimiter, index): the index-th (from 0) part, NULL past the last. */
static void fn_str_split(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return;
  const char *s = (const char *)sqlite3_value_text(argv[0]);
  const char *d = (const char *)sqlite3_value_text(argv[1]);
  if (!d || !*d) {
    sqlite3_result_error(ctx, "str_split: the delimiter must not be empty", -1);
    return;
  }
  if (sqlite3_value_type(argv[2]) != SQLITE_INTEGER) {
    sqlite3_result_error(ctx, "str_split: the index must be an integer", -1);
    return;
  }
  int64_t idx = sqlite3_value_int64(argv[2]);
  size_t dl = strlen(d);
  for (int64_t i = 0; i < idx && s; i++) {
    s = strstr(s, d);
    if (s) s += dl;
  }
  if (!s || idx < 0) return;
  const char *end = strstr(s, d);
  sqlite3_result_text(ctx, s, end ? (int)(end - s) : -1, SQLITE_TRANSIENT);
}

/* ---- slices ------------------------------------------------------------------------------ */

/* slice_is_ancestor(ancestor_id, descendant_id): whether the first is a strict ancestor. */
static void fn_slice_is_ancestor(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  trak_processor *p = sqlite3_user_data(ctx);
  const trak_tables *t = &p->tables;
  if (sqlite3_value_type(argv[0]) != SQLITE_INTEGER ||
      sqlite3_value_type(argv[1]) != SQLITE_INTEGER)
    return;
  int64_t a = sqlite3_value_int64(argv[0]), d = sqlite3_value_int64(argv[1]);
  if (a < 0 || d < 0 || (uint64_t)a >= t->slice.n || (uint64_t)d >= t->slice.n) {
    sqlite3_result_error(ctx, "slice_is_ancestor: no slice with that id", -1);
    return;
  }
  int hit = 0;
  for (uint32_t s = t->slice.parent_id[d]; s != TRAK_NULL_U32 && !hit; s = t->slice.parent_id[s])
    hit = s == (uint32_t)a;
  sqlite3_result_int(ctx, hit);
}

/* __intrinsic_slice_root_id(id): the id of the slice's depth-0 ancestor (itself at depth 0). */
static void fn_slice_root_id(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  trak_processor *p = sqlite3_user_data(ctx);
  const trak_tables *t = &p->tables;
  if (sqlite3_value_type(argv[0]) != SQLITE_INTEGER) return;
  int64_t id = sqlite3_value_int64(argv[0]);
  if (id < 0 || (uint64_t)id >= t->slice.n) return;
  uint32_t s = (uint32_t)id;
  for (size_t steps = 0; t->slice.parent_id[s] != TRAK_NULL_U32 && steps < t->slice.n; steps++)
    s = t->slice.parent_id[s];
  sqlite3_result_int64(ctx, s);
}

/* hash(v, ...): Perfetto's HASH, a 64-bit FNV-1a over the values in order with nothing between
** them: integers by their 8 little-endian bytes, strings by their bytes, NULL by nothing (where
** Perfetto fails). REALs and BLOBs are an error, as there. */
static void fn_hash(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  uint64_t h = TRAK_PSQL_FNV1A_BASIS;
  for (int i = 0; i < argc; i++) {
    int type = sqlite3_value_type(argv[i]);
    if (type == SQLITE_INTEGER) {
      uint64_t v = (uint64_t)sqlite3_value_int64(argv[i]);
      unsigned char le[8];
      for (int b = 0; b < 8; b++)
        le[b] = (unsigned char)(v >> (8 * b));
      h = trak__psql_fnv1a(h, le, sizeof le);
    } else if (type == SQLITE_TEXT || type == SQLITE_NULL) {
      const unsigned char *s = sqlite3_value_text(argv[i]);
      if (s) h = trak__psql_fnv1a(h, s, (size_t)sqlite3_value_bytes(argv[i]));
    } else {
      char *m = sqlite3_mprintf("HASH: argument %d is %s; only integers and strings hash", i,
                                type == SQLITE_FLOAT ? "a REAL" : "a BLOB");
      sqlite3_result_error(ctx, m, -1);
      sqlite3_free(m);
      return;
    }
  }
  sqlite3_result_int64(ctx, (int64_t)h);
}

/* ---- clocks ------------------------------------------------------------------------------- */

static int cmp_pair_dst(const void *a, const void *b) {
  const trak_clock_pair *x = a, *y = b;
  return x->dst < y->dst ? -1 : x->dst > y->dst;
}

/* Converts trace time `ts` to clock `id` from its snapshots, as Perfetto does: past the last
** snapshot by offset from it; at or before the first, the first's value; in between, the offset
** from the previous one but never past the next. Returns 0, or -1 without snapshots. */
static int from_trace_time(trak_processor *p, uint32_t id, int64_t ts, int64_t *out) {
  const trak_import_result *r = &p->result;
  if (id == r->trace_clock) {
    *out = ts;
    return 0;
  }
  const trak_clock_pairs *c = NULL;
  for (size_t i = 0; i < r->n_clocks && !c; i++)
    if (r->clocks[i].key == id) c = &r->clocks[i];
  if (!c || !c->n) return -1;
  size_t n = c->n;
  trak_clock_pair *v = malloc(n * sizeof *v);
  if (!v) return -1;
  memcpy(v, c->v, n * sizeof *v);
  qsort(v, n, sizeof *v, cmp_pair_dst);
  size_t lo = 0; /* the first snapshot at or after ts */
  while (lo < n && v[lo].dst < ts)
    lo++;
  if (lo == n)
    *out = v[n - 1].src + (ts - v[n - 1].dst);
  else if (lo == 0 || v[lo].dst == ts)
    *out = v[lo].src;
  else {
    int64_t from_prev = v[lo - 1].src + (ts - v[lo - 1].dst);
    *out = from_prev < v[lo].src ? from_prev : v[lo].src;
  }
  free(v);
  return 0;
}

/* The timestamp argument of a clock function; 0 when the result is NULL or an error. */
static int ts_arg(sqlite3_context *ctx, sqlite3_value *v, const char *name, int64_t *ts) {
  int type = sqlite3_value_type(v);
  if (type == SQLITE_INTEGER) {
    *ts = sqlite3_value_int64(v);
    return 1;
  }
  if (type != SQLITE_NULL) {
    char *m = sqlite3_mprintf("%s: first argument should be timestamp", name);
    sqlite3_result_error(ctx, m, -1);
    sqlite3_free(m);
  }
  return 0;
}

static void fn_to_clock(sqlite3_context *ctx, sqlite3_value **argv, uint32_t id, const char *name) {
  int64_t ts, out;
  if (ts_arg(ctx, argv[0], name, &ts) && !from_trace_time(sqlite3_user_data(ctx), id, ts, &out))
    sqlite3_result_int64(ctx, out);
}
static void fn_to_realtime(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  fn_to_clock(ctx, argv, CLOCK_REALTIME_ID, "TO_REALTIME");
}
static void fn_to_monotonic(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  fn_to_clock(ctx, argv, CLOCK_MONOTONIC_ID, "TO_MONOTONIC");
}

/* ABS_TIME_STR(ts): the realtime clock at ts as ISO 8601 with nanoseconds, in UTC. */
static void fn_abs_time_str(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  int64_t ts, real;
  if (!ts_arg(ctx, argv[0], "ABS_TIME_STR", &ts)) return;
  if (from_trace_time(sqlite3_user_data(ctx), CLOCK_REALTIME_ID, ts, &real)) return;
  time_t secs = (time_t)(real / 1000000000);
  int64_t ns = real % 1000000000;
  struct tm tm;
  if (!gmtime_r(&secs, &tm)) return;
  char buf[64];
  snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%09" PRId64, tm.tm_year + 1900,
           tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ns);
  sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
}

/* TO_TIMECODE(ns): "HH:MM:SS mmm uuu nnn". */
static void fn_to_timecode(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  int64_t ns;
  if (!ts_arg(ctx, argv[0], "TO_TIMECODE", &ns)) return;
  int64_t us = ns / 1000, ms = us / 1000, s = ms / 1000, m = s / 60, h = m / 60;
  char buf[80];
  snprintf(buf, sizeof buf,
           "%02" PRId64 ":%02" PRId64 ":%02" PRId64 " %03" PRId64 " %03" PRId64 " %03" PRId64, h,
           m % 60, s % 60, ms % 1000, us % 1000, ns % 1000);
  sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
}

/* ---- args as JSON ------------------------------------------------------------------------- */

/* Writes row `row`'s value as JSON. */
static void json_value(const trak_tables *t, uint32_t row, sqlite3_str *out) {
  int64_t v = trak__arg_int(t, row);
  switch (t->args.value_type[row]) {
  case TRAK_ARG_INT:
    sqlite3_str_appendf(out, "%lld", (long long)v);
    break;
  case TRAK_ARG_POINTER: /* as Perfetto: a hexadecimal string, "0x64" */
    sqlite3_str_appendf(out, "\"0x%llx\"", (unsigned long long)v);
    break;
  case TRAK_ARG_UINT:
    sqlite3_str_appendf(out, "%llu", (unsigned long long)v);
    break;
  case TRAK_ARG_BOOL:
    sqlite3_str_appendall(out, v ? "true" : "false");
    break;
  case TRAK_ARG_REAL:
    sqlite3_str_appendf(out, "%.15g", trak__arg_real(t, row)); /* 2.0 is 2, as Perfetto writes */
    break;
  case TRAK_ARG_STRING:
  case TRAK_ARG_JSON: {
    const char *s = trak__str(&t->strings, trak__arg_str(t, row));
    if (!s) {
      sqlite3_str_appendall(out, "null");
      break;
    }
    sqlite3_str_appendchar(out, 1, '"');
    for (; *s; s++) {
      unsigned char c = (unsigned char)*s;
      if (c == '"' || c == '\\')
        sqlite3_str_appendf(out, "\\%c", c);
      else if (c < 0x20)
        sqlite3_str_appendf(out, "\\u%04x", c);
      else
        sqlite3_str_appendchar(out, 1, (char)c);
    }
    sqlite3_str_appendchar(out, 1, '"');
    break;
  }
  default:
    sqlite3_str_appendall(out, "null");
  }
}

/* Length of the first path component of `key` ("a" of "a.b", "a" of "a[0].b"). */
static size_t component(const char *key) {
  size_t n = 0;
  while (key[n] && key[n] != '.' && key[n] != '[')
    n++;
  return n;
}

/* Writes rows [lo, hi) whose keys, after `skip` bytes, share the object being written. Keys of
** one set arrive in insertion order, so the members of a nested object are adjacent. */
static void json_object(const trak_tables *t, uint32_t lo, uint32_t hi, size_t skip,
                        sqlite3_str *out) {
  int is_array = 1;
  for (uint32_t r = lo; r < hi && is_array; r++)
    is_array = trak__str(&t->strings, t->args.key[r])[skip] == '[';
  sqlite3_str_appendchar(out, 1, is_array ? '[' : '{');
  for (uint32_t r = lo; r < hi;) {
    const char *key = trak__str(&t->strings, t->args.key[r]) + skip;
    size_t n;
    if (is_array) {
      const char *close = strchr(key, ']');
      n = close ? (size_t)(close - key) + 1 : strlen(key);
    } else {
      n = component(key);
    }
    uint32_t end = r + 1; /* rows sharing this component */
    while (end < hi && !strncmp(trak__str(&t->strings, t->args.key[end]) + skip, key, n) &&
           (trak__str(&t->strings, t->args.key[end])[skip + n] == '.' ||
            trak__str(&t->strings, t->args.key[end])[skip + n] == '['))
      end++;
    if (r > lo) sqlite3_str_appendchar(out, 1, ',');
    if (!is_array) sqlite3_str_appendf(out, "\"%.*s\":", (int)n, key);
    if (key[n] == 0 && end == r + 1) {
      json_value(t, r, out);
    } else {
      size_t next = skip + n + (key[n] == '.' ? 1 : 0);
      json_object(t, key[n] == 0 ? r + 1 : r, end, next, out);
    }
    r = end;
  }
  sqlite3_str_appendchar(out, 1, is_array ? ']' : '}');
}

static void fn_arg_set_to_json(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  trak_processor *p = sqlite3_user_data(ctx);
  const trak_tables *t = &p->tables;
  if (sqlite3_value_type(argv[0]) != SQLITE_INTEGER) return; /* NULL */
  int64_t set = sqlite3_value_int64(argv[0]);
  uint32_t lo = set >= 0 && (uint64_t)set < t->args.n ? (uint32_t)set : 0, hi = lo;
  while (hi < t->args.n && t->args.arg_set_id[hi] == set)
    hi++;
  sqlite3_str *out = sqlite3_str_new(NULL);
  if (hi == lo)
    sqlite3_str_appendall(out, "{}");
  else
    json_object(t, lo, hi, 0, out);
  int len = sqlite3_str_length(out);
  sqlite3_result_text(ctx, sqlite3_str_finish(out), len, sqlite3_free);
}

/* ---- tables the importer fills ------------------------------------------------------------ */

static int fill_tables(trak_processor *p) {
  int rc = trak__psql_trace_bounds_register(p); /* trace_bounds.c */
  if (rc == SQLITE_OK) rc = trak__sql_metadata_fill(p); /* metadata_table.c */
  return rc == SQLITE_OK ? trak__sql_stack_profile_fill(p) : rc;
}

int trak__psql_prelude_register(trak_processor *p) {
  static const struct {
    const char *name;
    int nargs;
    void (*fn)(sqlite3_context *, int, sqlite3_value **);
  } fns[] = {
      {"regexp", 2, fn_regexp},
      {"regexp", 3, fn_regexp},
      {"regexp_replace_simple", 3, fn_regexp_replace},
      {"regexp_extract", 2, fn_regexp_extract},
      {"unhex", 1, fn_unhex},
      {"str_split", 3, fn_str_split},
      {"slice_is_ancestor", 2, fn_slice_is_ancestor},
      {"hash", -1, fn_hash},
      {"__intrinsic_slice_root_id", 1, fn_slice_root_id},
      {"to_realtime", 1, fn_to_realtime},
      {"to_monotonic", 1, fn_to_monotonic},
      {"abs_time_str", 1, fn_abs_time_str},
      {"to_timecode", 1, fn_to_timecode},
      {"__intrinsic_arg_set_to_json", 1, fn_arg_set_to_json},
  };
  int rc = fill_tables(p);
  if (rc == SQLITE_OK) rc = trak__psql_span_join_register(p);
  if (rc == SQLITE_OK) rc = trak__psql_count_distinct_register(p->db);
  if (rc == SQLITE_OK) rc = trak__psql_ptable_register(p);
  if (rc == SQLITE_OK) rc = trak__psql_graphs_register(p);
  if (rc == SQLITE_OK) rc = trak__psql_slice_layout_register(p);
  if (rc == SQLITE_OK) rc = trak__psql_slice_walks_register(p);
  if (rc == SQLITE_OK) rc = trak__psql_slice_thread_time_register(p);
  if (rc == SQLITE_OK) rc = trak__psql_thread_state_scans_register(p);
  if (rc == SQLITE_OK) rc = trak__psql_overlap_count_register(p);
  if (rc == SQLITE_OK) rc = trak__psql_interval_intersect_register(p);
  if (rc == SQLITE_OK) rc = trak__psql_window_functions_register(p->db);
  if (rc == SQLITE_OK) rc = trak__psql_flamegraph_register(p->db);
  if (rc == SQLITE_OK) rc = trak__psql_stdlib_docs_register(p->db);
  if (rc == SQLITE_OK) rc = trak__psql_table_info_register(p);
  if (rc == SQLITE_OK) rc = trak__psql_trees_register(p);
  if (rc == SQLITE_OK) rc = trak__psql_zstd_register(p->db);
  for (size_t i = 0; rc == SQLITE_OK && i < sizeof fns / sizeof *fns; i++)
    rc = sqlite3_create_function(p->db, fns[i].name, fns[i].nargs,
                                 SQLITE_UTF8 | SQLITE_DETERMINISTIC, p, fns[i].fn, NULL, NULL);
  return rc;
}
