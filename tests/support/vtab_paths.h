/*
** Shared by the tests of the columnar tables' scan paths (test_vtab_paths, test_vtab_dict_paths):
** the data the tables are filled with (NULLs, ties, duplicates, boundary values; also empty,
** appended out of order, with the equality indexes built at once or never), their plain SQLite
** copies, and check(), which fails unless a query gives the same rows (or error) on the virtual
** tables as on the copies. The constants and operators every column is compared with are here
** too.
*/
#ifndef TRAK_TESTS_VTAB_PATHS_H
#define TRAK_TESTS_VTAB_PATHS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "processor/tables/arg_value.h"
#include "processor/tables/sched_cols.h"
#include "processor/tables/storage.h"
#include "processor/tables/thread_state_cols.h"
#include "processor/tables/vtab.h"

/* The tables and their plain copies: `$name` in a query stands for one or the other. */
static const char *const tables[] = {"slice",
                                     "__intrinsic_track",
                                     "thread",
                                     "process",
                                     "counter",
                                     "state",
                                     "machine",
                                     "flow",
                                     "args",
                                     "__intrinsic_sched_slice",
                                     "__intrinsic_thread_state",
                                     "__intrinsic_ftrace_event"};
#define NTABLES (sizeof tables / sizeof *tables)

typedef struct fixture {
  trak_tables t;
  sqlite3 *db;
  unsigned compared; /* queries compared */
  unsigned stride;   /* test every stride-th constant (fewer on the smaller data sets) */
} fixture;

static uint64_t rng_state;
static inline uint32_t rnd(uint32_t n) {
  rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
  return n ? (uint32_t)(rng_state % n) : 0;
}

static inline uint32_t str_id(trak_tables *t, const char *s) {
  return trak__strpool_intern(&t->strings, s, strlen(s));
}

/* Fills sched_slice, thread_state and ftrace_event with `n` rows each whose one-byte dictionary
** columns (storage.h's trak_dict8) hold NULL strings, zeros, numbers the string `values` read
** as, negative priorities and, in priority and common_flags, more than the 254 coded values
** (rows read from the side map: values 150 and 299 among them). */
static inline void fill_sched(trak_tables *t, uint32_t n, const uint32_t *ids) {
  for (uint32_t i = 0; i < n; i++) {
    uint32_t r = trak__sched_slice_push(t);
    t->sched_slice.ts[r] = (int64_t)i;
    t->sched_slice.dur[r] = rnd(50);
    t->sched_slice.utid[r] = rnd(6);
    trak__ss_end_state_set(t, r, rnd(3) ? ids[rnd(8)] : 0);
    trak__ss_ucpu_set(t, r, rnd(4) ? rnd(4) : 7);
    trak__ss_priority_set(t, r, rnd(5) ? (int32_t)(i * 37 % 400) - 100 : INT32_MIN);
    r = trak__thread_state_push(t);
    t->thread_state.ts[r] = (int64_t)i;
    t->thread_state.utid[r] = rnd(6);
    trak__ts_dur_set(t, r, rnd(50));
    trak__ts_state_set(t, r, rnd(4) ? ids[rnd(8)] : 0);
    r = trak__ftrace_event_push(t);
    t->ftrace_event.ts[r] = (int64_t)i;
    t->ftrace_event.utid[r] = rnd(6);
    trak__fe_name_set(t, r, rnd(5) ? ids[rnd(8)] : 0);
    trak__fe_ucpu_set(t, r, rnd(3) ? rnd(3) : 5);
    trak__fe_common_flags_set(t, r, (uint16_t)(rnd(3) ? i * 7 % 300 : rnd(4)));
  }
}

/* Fills the tables with `n` slices and proportionate other rows: NULLs in every nullable
** column, ties in sorted columns, boundary integers. */
static inline void fill(trak_tables *t, uint32_t n) {
  static const char *const words[] = {"a", "b", "Task", "task", "", "x%y", "3", "abc"};
  uint32_t ids[8];
  for (int i = 0; i < 8; i++)
    ids[i] = str_id(t, words[i]);
  static const int64_t big[] = {INT64_MIN, INT64_MAX, -1, 0, 4294967295, 4294967296};
  for (uint32_t m = 0; m < 2; m++)
    trak__machine_add(t, m ? 7 : 0);
  uint32_t np = n ? 4 : 0, nt = n ? 6 : 0;
  for (uint32_t i = 0; i < np; i++) {
    uint32_t p = trak__process_add(t, i == 3 ? INT64_MAX : (int64_t)i * 10);
    t->process.name[p] = i == 1 ? 0 : ids[rnd(8)];
    t->process.parent_upid[p] = i ? i - 1 : TRAK_NULL_U32;
    t->process.uid[p] = i == 2 ? INT64_MIN : big[i % 6];
    t->process.start_ts[p] = i == 0 ? INT64_MIN : (int64_t)i;
  }
  for (uint32_t i = 0; i < nt; i++) {
    uint32_t th = trak__thread_add(t, big[i % 6]);
    t->thread.name[th] = i == 2 ? 0 : ids[rnd(8)];
    t->thread.upid[th] = i == 4 ? TRAK_NULL_U32 : i % np;
    t->thread.is_main[th] = (uint8_t)(i % 3);
    t->thread.machine_id[th] = i % 2;
  }
  uint32_t ntracks = 0;
  for (uint32_t i = 0; n && i < 9; i++) {
    trak_track_kind kind = i < 5   ? TRAK_TRACK_THREAD
                           : i < 7 ? TRAK_TRACK_PROCESS
                                   : TRAK_TRACK_COUNTER;
    uint32_t tr = trak__track_add(t, kind);
    if (kind == TRAK_TRACK_THREAD) t->track.utid[tr] = i % nt;
    if (kind == TRAK_TRACK_PROCESS) t->track.upid[tr] = i % np;
    t->track.name[tr] = i == 0 ? 0 : ids[i % 8];
    t->track.parent_id[tr] = i > 2 ? i - 2 : TRAK_NULL_U32;
    ntracks++;
  }
  if (n) { /* a thread track without a thread, one of a thread that does not exist, a process
           ** track of a process that does not exist; a thread of such a process */
    t->track.utid[trak__track_add(t, TRAK_TRACK_THREAD)] = TRAK_NULL_U32;
    t->track.utid[trak__track_add(t, TRAK_TRACK_THREAD)] = 99;
    t->track.upid[trak__track_add(t, TRAK_TRACK_PROCESS)] = 99;
    t->thread.upid[trak__thread_add(t, 77)] = 99;
    ntracks += 3;
  }
  int64_t ts = -3;
  for (uint32_t i = 0; i < n; i++) {
    ts += rnd(3); /* ties */
    uint32_t parent = i && rnd(3) ? rnd(i) : TRAK_NULL_U32;
    uint32_t s =
        trak__slice_add(t, ts, i % 5 ? rnd(7) : 7 + rnd(6), rnd(4) ? ids[rnd(8)] : 0,
                        rnd(5) ? ids[rnd(8)] : 0, rnd(4), parent, rnd(3) ? rnd(20) : TRAK_NULL_U32);
    t->slice.dur[s] = rnd(5) ? (int64_t)rnd(50) : rnd(2) ? -1 : big[rnd(6)];
  }
  if (n) trak__tables_thread_time(t);
  fill_sched(t, n, ids);
  for (uint32_t i = 0; i < n; i += 3)
    t->slice.thread_ts[i] = (int64_t)i;
  for (uint32_t i = 0; i < n / 2; i++) {
    uint32_t c = trak__counter_add(t, (int64_t)i / 2, 7 + rnd(2), rnd(4) ? rnd(100) / 4.0 : -0.0);
    t->counter.arg_set_id[c] = rnd(2) ? rnd(10) : TRAK_NULL_U32;
  }
  for (uint32_t i = 0; i < n / 4; i++)
    trak__state_add(t, (int64_t)i, rnd(ntracks), ids[rnd(8)], rnd(3) ? ids[rnd(8)] : 0,
                    TRAK_NULL_U32);
  for (uint32_t i = 0; i + 1 < n / 8; i++)
    trak__flow_add(t, rnd(n), rnd(n), rnd(2) ? (int64_t)i : INT64_MIN);
  for (uint32_t set = 0; set < n / 10; set++) {
    uint32_t first = (uint32_t)t->args.n;
    for (uint32_t k = 0, nk = 1 + rnd(3); k < nk; k++) {
      trak_arg_type type = (trak_arg_type)(k == 0 ? TRAK_ARG_INT : rnd(7));
      uint32_t a = trak__arg_add(t, first, ids[rnd(8)], ids[rnd(8)], type);
      int64_t i = big[rnd(6)];
      uint32_t s = ids[rnd(8)];
      t->args.value[a] = trak__arg_word(type, i, rnd(10) / 3.0, s); /* the type's value kept */
    }
  }
}

/* Appends slices and counters out of timestamp order, as annotations do after the import. */
static inline void append_unsorted(trak_tables *t) {
  t->generation++;
  for (int i = 0; i < 5; i++) {
    uint32_t s =
        trak__slice_add(t, -10 + i * 3, 1, 0, str_id(t, "late"), 0, TRAK_NULL_U32, TRAK_NULL_U32);
    t->slice.dur[s] = i;
    trak__counter_add(t, -5 + i, 8, i);
  }
}

/* Gives the first 20 and the last 600 slices a duration no other slice has (12345): a filter on
** it passes nothing over most of the table, then more rows than a read-ahead batch holds. */
static inline void mark_ends(trak_tables *t) {
  for (size_t i = 0; i < t->slice.n; i++)
    if (i < 20 || i + 600 >= t->slice.n) t->slice.dur[i] = 12345;
}

static inline int setup_with(void **state, uint32_t n, int unsorted) {
  fixture *f = calloc(1, sizeof *f);
  f->stride = n == 0 ? 5 : unsorted ? 3 : 1;
  rng_state = 0x9E3779B97F4A7C15ull + n;
  trak__tables_init(&f->t);
  fill(&f->t, n);
  if (unsorted) append_unsorted(&f->t);
  if (n > 10000) mark_ends(&f->t);
  assert_int_equal(sqlite3_open(":memory:", &f->db), SQLITE_OK);
  assert_int_equal(trak__vtab_register(f->db, &f->t, NULL, NULL), SQLITE_OK);
  for (size_t i = 0; i < NTABLES; i++) { /* a full scan: the plain copies */
    char *sql = sqlite3_mprintf("CREATE TABLE \"p_%s\" AS SELECT * FROM %s", tables[i], tables[i]);
    assert_int_equal(sqlite3_exec(f->db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_free(sql);
  }
  *state = f;
  return 0;
}
/* More rows than the scans read at once (1,024: trak__vt_skip_batch's callers). */
static inline int setup_large(void **state) {
  return setup_with(state, 2600, 0);
}
/* More rows than a filtered scan reads ahead at once (4,096 candidates: vtab_scan.c). */
static inline int setup_ahead(void **state) {
  return setup_with(state, 12000, 0);
}
static inline int setup_empty(void **state) {
  return setup_with(state, 0, 0);
}
static inline int setup_rows(void **state) {
  return setup_with(state, 400, 0);
}
static inline int setup_unsorted(void **state) {
  return setup_with(state, 300, 1);
}

/* The same data with the equality indexes built at once, or never (the columns read instead). */
static inline int setup_index_at_once(void **state) {
  trak__vt_scans_before_index = 0;
  return setup_with(state, 400, 0);
}
static inline int setup_index_never(void **state) {
  trak__vt_scans_before_index = UINT32_MAX;
  return setup_with(state, 400, 0);
}

static inline int teardown(void **state) {
  fixture *f = *state;
  trak__vt_scans_before_index = 3;
  printf("  %u queries compared\n", f->compared);
  sqlite3_close(f->db);
  trak__tables_free(&f->t);
  free(f);
  return 0;
}

/* `sql` with each $table replaced by the table (plain 0) or its plain copy (plain 1). */
static inline char *expand(const char *sql, int plain) {
  size_t cap = strlen(sql) * 3 + 64, n = 0;
  char *out = malloc(cap);
  for (const char *p = sql; *p;) {
    size_t i;
    for (i = 0; *p == '$' && i < NTABLES; i++)
      if (!strncmp(p + 1, tables[i], strlen(tables[i])) &&
          !(p[1 + strlen(tables[i])] == '_' ||
            (p[1 + strlen(tables[i])] >= 'a' && p[1 + strlen(tables[i])] <= 'z')))
        break;
    if (*p == '$' && i < NTABLES) {
      n += (size_t)sprintf(out + n, plain ? "\"p_%s\"" : "%s", tables[i]);
      p += 1 + strlen(tables[i]);
    } else
      out[n++] = *p++;
  }
  out[n] = 0;
  return out;
}

static inline int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The rows of `sql`, one line each (typed values), sorted unless `ordered`; NULL on an error
** (its message in *err). */
static inline char *run(sqlite3 *db, const char *sql, int ordered, char **err) {
  sqlite3_stmt *st;
  *err = NULL;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
    *err = strdup(sqlite3_errmsg(db));
    return NULL;
  }
  size_t nrows = 0, cap = 16;
  char **rows = malloc(cap * sizeof *rows);
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    char *line = sqlite3_mprintf("");
    for (int c = 0; c < sqlite3_column_count(st); c++) {
      int type = sqlite3_column_type(st, c);
      char *next;
      if (type == SQLITE_NULL)
        next = sqlite3_mprintf("%s|N", line);
      else if (type == SQLITE_FLOAT)
        next = sqlite3_mprintf("%s|R%!.17g", line, sqlite3_column_double(st, c));
      else
        next = sqlite3_mprintf("%s|%c%s", line, type == SQLITE_INTEGER ? 'I' : 'T',
                               (const char *)sqlite3_column_text(st, c));
      sqlite3_free(line);
      line = next;
    }
    if (nrows == cap) rows = realloc(rows, (cap *= 2) * sizeof *rows);
    rows[nrows++] = line;
  }
  if (rc != SQLITE_DONE) *err = strdup(sqlite3_errmsg(db));
  sqlite3_finalize(st);
  if (!ordered) qsort(rows, nrows, sizeof *rows, cmp_str);
  size_t len = 1;
  for (size_t i = 0; i < nrows; i++)
    len += strlen(rows[i]) + 1;
  char *out = malloc(len), *p = out;
  *p = 0;
  for (size_t i = 0; i < nrows; i++) {
    p += sprintf(p, "%s\n", rows[i]);
    sqlite3_free(rows[i]);
  }
  free(rows);
  if (*err) {
    free(out);
    return NULL;
  }
  return out;
}

/* Runs `virt` and `plain` and fails unless both give the same rows (in the same order when the
** query orders them) or the same error. */
static inline void check_pair(fixture *f, const char *virt, const char *plain) {
  int ordered = strstr(virt, "ORDER BY") != NULL;
  char *e1, *e2;
  char *a = run(f->db, virt, ordered, &e1), *b = run(f->db, plain, ordered, &e2);
  if ((a && b && strcmp(a, b)) || !a != !b) {
    fprintf(stderr, "differs: %s\n--- virtual (%s):\n%.1500s\n--- plain (%s):\n%.1500s\n", virt,
            e1 ? e1 : "ok", a ? a : "", e2 ? e2 : "ok", b ? b : "");
    fail();
  }
  f->compared++;
  free(a), free(b), free(e1), free(e2);
}

/* check_pair of `sql` on the virtual tables and on their plain copies. */
static inline void check(fixture *f, const char *sql) {
  char *virt = expand(sql, 0), *plain = expand(sql, 1);
  check_pair(f, virt, plain);
  free(virt), free(plain);
}

/* Constants every column is compared with: integers at the edges of the column types, reals
** whole and not, text that reads as a number and text that does not, a blob, NULL, and strings
** the tables hold. */
static const char *const values[] = {"NULL",
                                     "0",
                                     "1",
                                     "-1",
                                     "2",
                                     "3",
                                     "5",
                                     "7",
                                     "20",
                                     "150",
                                     "299",
                                     "400",
                                     "404",
                                     "4294967295",
                                     "4294967296",
                                     "-4294967296",
                                     "9223372036854775807",
                                     "-9223372036854775808",
                                     "1.5",
                                     "-0.5",
                                     "2.0",
                                     "1e300",
                                     "-1e300",
                                     "9223372036854775808.0",
                                     "'3'",
                                     "'3.0'",
                                     "' 4 '",
                                     "'abc'",
                                     "''",
                                     "'Task'",
                                     "'task'",
                                     "'a'",
                                     "'x%y'",
                                     "x'00'",
                                     "'late'"};
#define NVALUES (sizeof values / sizeof *values)

static const char *const ops[] = {"=", ">", "<", "<=", ">=", "IS", "!="};
#define NOPS (sizeof ops / sizeof *ops)

/* The columns of table `i` as SQL sees them (at most 16). */
static inline int columns(sqlite3 *db, const char *table, char cols[16][64]) {
  char *sql = sqlite3_mprintf("SELECT name FROM pragma_table_info(%Q)", table);
  sqlite3_stmt *st;
  assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
  sqlite3_free(sql);
  int n = 0;
  while (sqlite3_step(st) == SQLITE_ROW && n < 16)
    snprintf(cols[n++], 64, "%s", (const char *)sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  return n;
}

#endif /* TRAK_TESTS_VTAB_PATHS_H */
