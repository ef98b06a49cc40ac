/*
** Tests of the columnar tables' scan paths (tables/vtab_scan.c): every query shape the virtual
** tables answer themselves (id lookups, binary search on sorted columns, equality indexes, IN
** lists, IS NULL / IS NOT NULL, string ids, ORDER BY on the row order, GROUP BY grouping) gives
** the rows plain SQLite gives for the same query on the same data copied into ordinary tables.
** The data holds NULLs, ties, duplicates and boundary values; the constants cover every
** column type with integers, reals, numeric and other text, blobs and NULL; the tables are also
** checked empty and after rows were appended out of order (sorted columns no longer sorted), and
** with equalities on 32-bit columns answered by an equality index from the first query or never
** (the column read on each query, as the first few queries of a column are).
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sqlite3.h>

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
static uint32_t rnd(uint32_t n) {
  rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
  return n ? (uint32_t)(rng_state % n) : 0;
}

static uint32_t str_id(trak_tables *t, const char *s) {
  return trak__strpool_intern(&t->strings, s, strlen(s));
}

/* Fills sched_slice, thread_state and ftrace_event with `n` rows each whose one-byte dictionary
** columns (storage.h's trak_dict8) hold NULL strings, zeros, numbers the string `values` read
** as, negative priorities and, in priority and common_flags, more than the 254 coded values
** (rows read from the side map: values 150 and 299 among them). */
static void fill_sched(trak_tables *t, uint32_t n, const uint32_t *ids) {
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
static void fill(trak_tables *t, uint32_t n) {
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
      uint32_t a = trak__arg_add(t, first, ids[rnd(8)], ids[rnd(8)],
                                 (trak_arg_type)(k == 0 ? TRAK_ARG_INT : rnd(7)));
      t->args.int_value[a] = big[rnd(6)];
      t->args.string_value[a] = ids[rnd(8)];
      t->args.real_value[a] = rnd(10) / 3.0;
    }
  }
}

/* Appends slices and counters out of timestamp order, as annotations do after the import. */
static void append_unsorted(trak_tables *t) {
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
static void mark_ends(trak_tables *t) {
  for (size_t i = 0; i < t->slice.n; i++)
    if (i < 20 || i + 600 >= t->slice.n) t->slice.dur[i] = 12345;
}

static int setup_with(void **state, uint32_t n, int unsorted) {
  fixture *f = calloc(1, sizeof *f);
  f->stride = n == 0 ? 5 : unsorted ? 3 : 1;
  rng_state = 0x9E3779B97F4A7C15ull + n;
  trak__tables_init(&f->t);
  fill(&f->t, n);
  if (unsorted) append_unsorted(&f->t);
  if (n > 10000) mark_ends(&f->t);
  assert_int_equal(sqlite3_open(":memory:", &f->db), SQLITE_OK);
  assert_int_equal(trak__vtab_register(f->db, &f->t), SQLITE_OK);
  for (size_t i = 0; i < NTABLES; i++) { /* a full scan: the plain copies */
    char *sql = sqlite3_mprintf("CREATE TABLE \"p_%s\" AS SELECT * FROM %s", tables[i], tables[i]);
    assert_int_equal(sqlite3_exec(f->db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_free(sql);
  }
  *state = f;
  return 0;
}
/* More rows than the scans read at once (1,024: trak__vt_skip_batch's callers). */
static int setup_large(void **state) {
  return setup_with(state, 2600, 0);
}
/* More rows than a filtered scan reads ahead at once (4,096 candidates: vtab_scan.c). */
static int setup_ahead(void **state) {
  return setup_with(state, 12000, 0);
}
static int setup_empty(void **state) {
  return setup_with(state, 0, 0);
}
static int setup_rows(void **state) {
  return setup_with(state, 400, 0);
}
static int setup_unsorted(void **state) {
  return setup_with(state, 300, 1);
}

/* The same data with the equality indexes built at once, or never (the columns read instead). */
static int setup_index_at_once(void **state) {
  trak__vt_scans_before_index = 0;
  return setup_with(state, 400, 0);
}
static int setup_index_never(void **state) {
  trak__vt_scans_before_index = UINT32_MAX;
  return setup_with(state, 400, 0);
}

static int teardown(void **state) {
  fixture *f = *state;
  trak__vt_scans_before_index = 3;
  printf("  %u queries compared\n", f->compared);
  sqlite3_close(f->db);
  trak__tables_free(&f->t);
  free(f);
  return 0;
}

/* `sql` with each $table replaced by the table (plain 0) or its plain copy (plain 1). */
static char *expand(const char *sql, int plain) {
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

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The rows of `sql`, one line each (typed values), sorted unless `ordered`; NULL on an error
** (its message in *err). */
static char *run(sqlite3 *db, const char *sql, int ordered, char **err) {
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
static void check_pair(fixture *f, const char *virt, const char *plain) {
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
static void check(fixture *f, const char *sql) {
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
static int columns(sqlite3 *db, const char *table, char cols[16][64]) {
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

/* One comparison on every column of every table with every constant and operator (> and >=
** also scanned backwards), then the NULL tests, then each with ORDER BY id DESC and a LIMIT. */
static void test_single_constraints(void **state) {
  fixture *f = *state;
  char sql[8192], cols[16][64];
  for (size_t t = 0; t < NTABLES; t++) {
    int n = columns(f->db, tables[t], cols);
    for (int c = 0; c < n; c++) {
      for (size_t o = 0; o < NOPS; o++)
        for (size_t v = o % f->stride; v < NVALUES; v += f->stride) {
          snprintf(sql, sizeof sql, "SELECT * FROM $%s WHERE %s %s %s", tables[t], cols[c], ops[o],
                   values[v]);
          check(f, sql);
          if (o == 1 || o == 4) { /* a range filter's scan backwards */
            snprintf(sql, sizeof sql, "SELECT * FROM $%s WHERE %s %s %s ORDER BY id DESC LIMIT 5",
                     tables[t], cols[c], ops[o], values[v]);
            check(f, sql);
          }
          if (o >= 2) continue; /* the value on the left: = and > (so also <) */
          snprintf(sql, sizeof sql, "SELECT * FROM $%s WHERE %s %s %s", tables[t], values[v],
                   ops[o], cols[c]);
          check(f, sql);
        }
      snprintf(sql, sizeof sql, "SELECT * FROM $%s WHERE %s IS NULL", tables[t], cols[c]);
      check(f, sql);
      snprintf(sql, sizeof sql, "SELECT * FROM $%s WHERE %s IS NOT NULL ORDER BY id DESC LIMIT 7",
               tables[t], cols[c]);
      check(f, sql);
      static const char *const top[] = {"%s DESC, id LIMIT 5 OFFSET 2", "%s, id DESC LIMIT 7",
                                        "%s DESC, id DESC LIMIT 1", "%s, id LIMIT -1 OFFSET 3",
                                        "%s, id LIMIT 0"};
      for (size_t k = 0; k < sizeof top / sizeof *top; k++) { /* ORDER BY ... LIMIT: top-N */
        char order[256];
        snprintf(order, sizeof order, top[k], cols[c]);
        snprintf(sql, sizeof sql, "SELECT * FROM $%s WHERE id >= %zu ORDER BY %s", tables[t], k,
                 order);
        check(f, sql);
      }
      snprintf(sql, sizeof sql,
               "SELECT * FROM $%s WHERE %s IN (NULL, 0, 2, 2, '3', 5.0, 5.5, 'a', 'Task', x'00', "
               "4294967296)",
               tables[t], cols[c]);
      check(f, sql);
      snprintf(sql, sizeof sql, "SELECT * FROM $%s WHERE %s NOT IN (1, 2) ORDER BY id LIMIT 5",
               tables[t], cols[c]);
      check(f, sql);
      snprintf(sql, sizeof sql, "SELECT * FROM $%s WHERE %s IN (SELECT %s FROM $%s WHERE id < 9)",
               tables[t], cols[c], cols[c], tables[t]);
      check(f, sql);
      snprintf(sql, sizeof sql, "SELECT * FROM $%s WHERE %s = 'a' COLLATE NOCASE", tables[t],
               cols[c]);
      check(f, sql);
    }
  }
}

/* Two or three random constraints at once, with random ORDER BY / LIMIT / OFFSET. */
static void test_combined_constraints(void **state) {
  fixture *f = *state;
  char sql[16384], where[8192], cols[16][64];
  static const char *const orders[] = {"",
                                       " ORDER BY id",
                                       " ORDER BY id DESC LIMIT 4",
                                       " ORDER BY ts, id LIMIT 6 OFFSET 2",
                                       " ORDER BY ts DESC, id DESC LIMIT 5",
                                       " ORDER BY ts DESC, id DESC LIMIT 3 OFFSET 1",
                                       " ORDER BY 2, 1 LIMIT 9"};
  rng_state = 12345;
  for (unsigned q = 0; q < 3000 / f->stride; q++) {
    size_t t = rnd(NTABLES);
    int n = columns(f->db, tables[t], cols);
    where[0] = 0;
    for (int k = 0, nk = 2 + (int)rnd(2); k < nk; k++) {
      size_t len = strlen(where);
      uint32_t kind = rnd(8);
      const char *col = cols[rnd((uint32_t)n)];
      if (kind == 0)
        snprintf(where + len, sizeof where - len, "%s%s IS NULL", k ? " AND " : "", col);
      else if (kind == 1)
        snprintf(where + len, sizeof where - len, "%s%s IN (%s, %s, %s)", k ? " AND " : "", col,
                 values[rnd(NVALUES)], values[rnd(NVALUES)], values[rnd(NVALUES)]);
      else
        snprintf(where + len, sizeof where - len, "%s%s %s %s", k ? " AND " : "", col, ops[rnd(5)],
                 values[rnd(NVALUES)]);
    }
    const char *order = orders[rnd(sizeof orders / sizeof *orders)];
    int has_ts =
        !strcmp(tables[t], "slice") || !strcmp(tables[t], "counter") || !strcmp(tables[t], "state");
    if (strstr(order, "ts") && !has_ts) order = " ORDER BY id DESC LIMIT 4";
    snprintf(sql, sizeof sql, "SELECT * FROM $%s WHERE %s%s", tables[t], where, order);
    check(f, sql);
  }
}

/* Joins, aggregates, grouping and the shapes of bench/query_set.sql. */
static void test_query_shapes(void **state) {
  fixture *f = *state;
  static const char *const queries[] = {
      "SELECT COUNT(*) FROM $slice",
      "SELECT name, COUNT(*) AS n FROM $slice GROUP BY name ORDER BY n DESC, name",
      "SELECT name, COUNT(*) FROM $slice GROUP BY name",
      "SELECT track_id, COUNT(*), SUM(dur) FROM $slice GROUP BY track_id",
      "SELECT parent_id, COUNT(*) FROM $slice WHERE ts > 3 GROUP BY parent_id",
      "SELECT category, MAX(dur) FROM $slice WHERE track_id = 2 GROUP BY category",
      "SELECT arg_set_id, COUNT(*) FROM $counter GROUP BY arg_set_id",
      "SELECT id, dur FROM $slice ORDER BY dur DESC, id LIMIT 10",
      "SELECT id FROM $slice WHERE depth = 0 ORDER BY dur DESC, id LIMIT 1",
      "SELECT id, dur FROM $slice WHERE depth = 1 ORDER BY dur, id DESC LIMIT 4",
      "SELECT id, dur FROM $slice WHERE track_id = 2 AND depth = 0 ORDER BY dur LIMIT 3",
      "SELECT id FROM $slice WHERE dur > 5 ORDER BY parent_id DESC, id LIMIT 6",
      "SELECT id FROM $slice WHERE name GLOB 'T*' ORDER BY ts DESC, id LIMIT 2",
      "SELECT p.name, t.name, COUNT(*), SUM(s.dur) FROM $slice s JOIN $__intrinsic_track tt ON "
      "s.track_id = tt.id JOIN $thread t USING (utid) JOIN $process p USING (upid) GROUP BY 1, 2",
      "SELECT s.id, t.tid, p.pid FROM $slice s JOIN $__intrinsic_track tt ON tt.id = s.track_id "
      "JOIN $thread t ON t.utid = tt.utid LEFT JOIN $process p ON p.upid = t.upid",
      "SELECT p.name, COUNT(*) AS n FROM $slice c JOIN $slice p ON c.parent_id = p.id GROUP BY "
      "p.name ORDER BY n DESC, p.name",
      "SELECT c.id, p.id FROM $slice c LEFT JOIN $slice p ON p.id = c.parent_id WHERE c.depth > 1",
      "SELECT track_id, COUNT(*), MIN(value), MAX(value), AVG(value) FROM $counter GROUP BY "
      "track_id ORDER BY track_id",
      "SELECT COUNT(*), SUM(dur) FROM $slice WHERE ts BETWEEN 10 AND 60",
      "SELECT COUNT(*) FROM $slice WHERE track_id = 3 AND ts < 80 AND ts + dur > 40",
      "SELECT * FROM $slice WHERE track_id IN (SELECT id FROM $__intrinsic_track WHERE utid IS "
      "NOT NULL) AND ts >= 5 ORDER BY ts, id",
      "SELECT * FROM $slice WHERE id IN (SELECT parent_id FROM $slice) ORDER BY id DESC",
      "SELECT * FROM $slice WHERE name IN (SELECT name FROM $thread)",
      "SELECT * FROM $slice WHERE name = (SELECT name FROM $thread WHERE utid = 1)",
      "SELECT a.* FROM $slice s JOIN $args a ON a.arg_set_id = s.arg_set_id WHERE s.id < 40",
      "SELECT s.id, a.key FROM $slice s JOIN $args a USING (arg_set_id) WHERE a.int_value > 0",
      "SELECT * FROM $slice WHERE name LIKE 'T%' ORDER BY ts DESC, id DESC",
      "SELECT * FROM $slice WHERE name GLOB 'a*' AND dur >= 0",
      "SELECT s.name, t.name FROM $slice s JOIN $thread t ON s.name = t.name",
      "SELECT s.id FROM $slice s JOIN $thread t ON s.name = t.tid",
      "SELECT s.id FROM $slice s JOIN $thread t ON s.track_id = t.name",
      "SELECT t.utid, t.tid FROM $thread t WHERE t.tid IN (SELECT dur FROM $slice)",
      "SELECT id, ts FROM $slice ORDER BY ts DESC, id DESC LIMIT 12",
      "SELECT id, ts FROM $slice WHERE ts > 20 ORDER BY ts LIMIT 12",
      "SELECT DISTINCT name FROM $slice",
      "SELECT DISTINCT track_id FROM $slice ORDER BY track_id",
      "SELECT utid, name, dur FROM (SELECT t.utid, s.name, s.dur, row_number() OVER (PARTITION BY "
      "t.utid ORDER BY s.dur DESC, s.id) AS rn FROM $slice s JOIN $__intrinsic_track t ON t.id = "
      "s.track_id) WHERE rn <= 3 ORDER BY utid, rn",
      "SELECT f.id, o.name, i.name FROM $flow f JOIN $slice o ON o.id = f.slice_out JOIN $slice i "
      "ON i.id = f.slice_in",
      "SELECT * FROM $state WHERE value IS NULL OR track_id = 1",
      "SELECT * FROM $process WHERE uid IS NULL AND parent_upid IS NOT NULL",
      "SELECT * FROM $thread WHERE is_main_thread = 1 OR is_main_thread IS NULL",
      "SELECT track_id, COUNT(*) FROM $slice GROUP BY track_id ORDER BY track_id LIMIT 3",
      /* GROUP BY and ORDER BY DESC of one column: SQLite takes the grouping as the order. */
      "SELECT track_id, COUNT(*) FROM $slice GROUP BY track_id ORDER BY track_id DESC",
      "SELECT name, COUNT(*) FROM $slice GROUP BY name ORDER BY name DESC",
      "SELECT name, SUM(dur) FROM $slice WHERE dur > 3 GROUP BY name ORDER BY name DESC LIMIT 2",
      "SELECT name, COUNT(*) FROM $slice WHERE dur > 3 GROUP BY name ORDER BY name LIMIT 2",
      "SELECT DISTINCT depth FROM $slice ORDER BY depth DESC LIMIT 2",
      "SELECT depth, id FROM $slice WHERE depth IN (1, 2) ORDER BY depth DESC, id LIMIT 4",
      "SELECT id FROM $slice WHERE name = 'a' ORDER BY dur, id LIMIT 3 OFFSET 1",
  };
  for (size_t i = 0; i < sizeof queries / sizeof *queries; i++)
    check(f, queries[i]);
  /* Every table's row count, which answers `SELECT COUNT(*) FROM <table>` (column_aggregates.c). */
  for (size_t i = 0; i < NTABLES; i++) {
    char virt[128], plain[128];
    snprintf(virt, sizeof virt, "SELECT __intrinsic_row_count('%s')", tables[i]);
    snprintf(plain, sizeof plain, "SELECT COUNT(*) FROM \"p_%s\"", tables[i]);
    check_pair(f, virt, plain);
  }
  /* A prepared statement run twice with different bindings (the cursor is reset). */
  for (int plain = 0; plain < 2; plain++) {
    char *sql = expand("SELECT COUNT(*) FROM $slice WHERE track_id = ?1 AND ts >= ?2", plain);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(f->db, sql, -1, &st, NULL), SQLITE_OK);
    free(sql);
    int64_t counts[4];
    for (int k = 0; k < 4; k++) {
      sqlite3_bind_int(st, 1, k);
      sqlite3_bind_int(st, 2, k * 10);
      assert_int_equal(sqlite3_step(st), SQLITE_ROW);
      counts[k] = sqlite3_column_int64(st, 0);
      sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    static int64_t first[4];
    if (!plain) memcpy(first, counts, sizeof first);
    assert_memory_equal(first, counts, sizeof first);
  }
}

/* LIKE, GLOB and text comparisons (evaluated once per string id by SQLite's operators) on every
** column: patterns with and without wildcards, case, escapes, a GLOB prefix (SQLite adds a text
** range for it), values that are no text, NULL, a value from a subquery, the filter on the inner
** table of a join, NOT LIKE; again under PRAGMA case_sensitive_like (the built-in LIKE replaced).
** A pattern past SQLite's length limit fails both (the cursor fails before its first row, also
** when no row would have been matched: checked on tables with rows). */
static void test_text_filters(void **state) {
  fixture *f = *state;
  static const char *const patterns[] = {
      "'a%'", "'A%'",  "'T%'",     "'ta%'", "'%a%'",  "'_'",     "''",      "'%'",    "'Task*'",
      "'T*'", "'t*'",  "'[a-c]*'", "'*%*'", "'x%y'",  "'x\\%y'", "'3'",     "3",      "3.0",
      "NULL", "x'61'", "'abc'",    "'?'",   "'Task'", "'b'",     "'task%'", "'[^a]*'"};
  static const char *const shapes[] = {
      "SELECT * FROM $%s WHERE %s LIKE %s",
      "SELECT * FROM $%s WHERE %s GLOB %s",
      "SELECT * FROM $%s WHERE %s NOT LIKE %s",
      "SELECT * FROM $%s WHERE %s LIKE %s ESCAPE '\\'",
      "SELECT * FROM $%s WHERE %s LIKE (SELECT %s)",
      "SELECT * FROM $%s WHERE %s GLOB %s ORDER BY id DESC LIMIT 3",
      "SELECT * FROM $%s WHERE %s >= %s AND id < 1000",
      "SELECT * FROM $%s WHERE %s < (SELECT %s) ORDER BY id LIMIT 4 OFFSET 1",
  };
  char sql[4096], cols[16][64];
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 1)
      assert_int_equal(sqlite3_exec(f->db, "PRAGMA case_sensitive_like = ON", NULL, NULL, NULL),
                       SQLITE_OK);
    for (size_t t = 0; t < NTABLES; t++) {
      int n = columns(f->db, tables[t], cols);
      for (int c = 0; c < n; c++)
        for (size_t sh = 0; sh < sizeof shapes / sizeof *shapes; sh++)
          for (size_t v = (sh + c) % f->stride; v < sizeof patterns / sizeof *patterns;
               v += f->stride) {
            snprintf(sql, sizeof sql, shapes[sh], tables[t], cols[c], patterns[v]);
            check(f, sql);
          }
    }
    check(f, "SELECT t.id, p.id FROM $thread t JOIN $process p ON t.upid = p.id "
             "WHERE p.name LIKE 'a%' OR p.name GLOB 'T*'");
    check(f, "SELECT t.id, p.id FROM $thread t JOIN $process p ON t.upid = p.id "
             "AND p.name LIKE '%a%' ORDER BY t.id");
    check(f, "SELECT name, COUNT(*) FROM $slice WHERE name LIKE 't%' GROUP BY name");
  }
  sqlite3_exec(f->db, "PRAGMA case_sensitive_like = OFF", NULL, NULL, NULL);
  if (!f->t.slice.n) return;
  int limit = sqlite3_limit(f->db, SQLITE_LIMIT_LIKE_PATTERN_LENGTH, 2);
  check(f, "SELECT * FROM $slice WHERE name LIKE 'abc%'");
  check(f, "SELECT * FROM $slice WHERE name GLOB 'abc*'");
  char *err = NULL;
  free(run(f->db, "SELECT * FROM slice WHERE name LIKE 'abc%'", 0, &err));
  assert_non_null(err);
  assert_non_null(strstr(err, "too complex"));
  free(err);
  sqlite3_limit(f->db, SQLITE_LIMIT_LIKE_PATTERN_LENGTH, limit);
}

/* The slice's computed columns as plain SQL joins them (the joins of Perfetto's thread_slice and
** process_slice, which read them), on the plain copies. */
static const char *const computed_ref =
    "SELECT s.*, th.utid AS __utid,"
    "  CAST(CASE WHEN th.utid IS NOT NULL THEN th.upid ELSE pp.upid END AS BIGINT) AS __upid,"
    "  tr.name AS __track_name, th.name AS __thread_name, th.tid AS __tid,"
    "  th.is_main_thread AS __is_main_thread, pr.name AS __process_name, pr.pid AS __pid "
    "FROM p_slice s LEFT JOIN p___intrinsic_track tr ON tr.id = s.track_id "
    "LEFT JOIN p_thread th ON tr.classification = 'thread_track' AND th.utid = tr.utid "
    "LEFT JOIN p_process pp ON tr.classification = 'process_track' AND pp.upid = tr.upid "
    "LEFT JOIN p_process pr ON pr.upid = (CASE WHEN th.utid IS NOT NULL THEN th.upid "
    "  ELSE pp.upid END)";

/* The slice's computed (hidden) columns, read and filtered (every constant and operator, NULL
** tests, IN, ORDER BY ... LIMIT) and the views with_context.sql builds on them, against
** computed_ref; they stay out of SELECT *. */
static void test_computed_columns(void **state) {
  fixture *f = *state;
  static const char *const cols[] = {"__utid",         "__upid", "__track_name",
                                     "__thread_name",  "__tid",  "__is_main_thread",
                                     "__process_name", "__pid"};
  char virt[4096], plain[8192], cond[512];
  for (size_t c = 0; c < sizeof cols / sizeof *cols; c++) {
    for (size_t k = 0; k < NOPS * NVALUES + 5; k += f->stride) {
      if (k < NOPS * NVALUES)
        snprintf(cond, sizeof cond, "%s %s %s", cols[c], ops[k % NOPS], values[k / NOPS]);
      else
        snprintf(
            cond, sizeof cond,
            (const char *const[]){"%s IS NULL", "%s IS NOT NULL", "%s IN (0, 1, 3, 'a', 99)",
                                  "%s > 0 ORDER BY %s DESC, id LIMIT 4",
                                  "%s IS NOT NULL ORDER BY %s, dur DESC, id"}[k - NOPS * NVALUES],
            cols[c], cols[c]);
      snprintf(virt, sizeof virt, "SELECT id, %s FROM slice WHERE %s", cols[c], cond);
      snprintf(plain, sizeof plain, "SELECT id, %s FROM (%s) WHERE %s", cols[c], computed_ref,
               cond);
      check_pair(f, virt, plain);
    }
  }
  snprintf(plain, sizeof plain,
           "SELECT id, __utid, __upid, __track_name, __thread_name, __tid, "
           "__is_main_thread, __process_name, __pid FROM (%s) ORDER BY id",
           computed_ref);
  check_pair(f,
             "SELECT id, __utid, __upid, __track_name, __thread_name, __tid, __is_main_thread, "
             "__process_name, __pid FROM slice ORDER BY id",
             plain);
  /* with_context.sql's thread_slice and process_slice against Perfetto's joins. */
  check_pair(f,
             "SELECT id, __track_name, __thread_name, __utid, __tid, __is_main_thread, "
             "__process_name, __upid, __pid FROM slice WHERE __utid >= 0",
             "SELECT s.id, tt.name, th.name, th.utid, th.tid, th.is_main_thread, pr.name, "
             "th.upid, pr.pid FROM p___intrinsic_track tt JOIN p_thread th ON th.utid = tt.utid "
             "LEFT JOIN p_process pr ON pr.upid = th.upid JOIN p_slice s ON s.track_id = tt.id "
             "WHERE tt.classification = 'thread_track'");
  check_pair(f,
             "SELECT id, __track_name, __process_name, __upid, __pid FROM slice "
             "WHERE __upid >= 0 AND __utid IS NULL",
             "SELECT s.id, pt.name, pr.name, pr.upid, pr.pid FROM p_slice s JOIN "
             "p___intrinsic_track pt ON pt.id = s.track_id JOIN p_process pr ON pr.upid = pt.upid "
             "WHERE pt.classification = 'process_track'");
  sqlite3_stmt *st; /* SELECT * shows Perfetto's 15 columns, not the computed ones */
  assert_int_equal(sqlite3_prepare_v2(f->db, "SELECT * FROM slice", -1, &st, NULL), SQLITE_OK);
  assert_int_equal(sqlite3_column_count(st), 15);
  sqlite3_finalize(st);
}

/* ORDER BY several columns (the cursor sorts the rows): directions, NULLs, ties decided by the
** row order or by the id, with filters and a LIMIT, on every table. */
static void test_sorts(void **state) {
  fixture *f = *state;
  char sql[4096], cols[16][64];
  static const char *const shapes[] = {
      "SELECT * FROM $%s ORDER BY %s, %s", "SELECT * FROM $%s ORDER BY %s DESC, %s, id",
      "SELECT * FROM $%s ORDER BY %s, %s DESC, id DESC",
      "SELECT * FROM $%s WHERE id > 3 ORDER BY %s DESC, %s DESC LIMIT 9 OFFSET 2",
      "SELECT id FROM $%s ORDER BY %s, %s, id DESC, 1"};
  for (size_t t = 0; t < NTABLES; t++) {
    int n = columns(f->db, tables[t], cols);
    for (int a = 0; a < n; a++)
      for (int b = (a + 1) % n, k = 0; k < 3; k++, b = (b + 5) % n)
        for (size_t sh = (a + k) % f->stride; sh < sizeof shapes / sizeof *shapes;
             sh += f->stride) {
          snprintf(sql, sizeof sql, shapes[sh], tables[t], cols[a], cols[b]);
          check(f, sql);
        }
  }
}

/* The dictionary columns' tables (hidden from SELECT *, so not in the $ copies) with their
** plain copies of every column: `@ss`, `@ts`, `@fe` in a query stand for one or the other. */
static const char *const dict_tables[][3] = {
    {"@ss", "__intrinsic_sched_slice", "id, ts, dur, utid, end_state, ucpu, priority"},
    {"@ts", "__intrinsic_thread_state", "id, ts, utid, dur, state"},
    {"@fe", "__intrinsic_ftrace_event", "id, ts, utid, name, ucpu, common_flags"}};
#define NDICT_TABLES (sizeof dict_tables / sizeof *dict_tables)

/* Makes the plain copies "x_<table>" of dict_tables. */
static void dict_copies(sqlite3 *db) {
  for (size_t i = 0; i < NDICT_TABLES; i++) {
    char *sql = sqlite3_mprintf("CREATE TABLE IF NOT EXISTS \"x_%s\" AS SELECT %s FROM %s",
                                dict_tables[i][1], dict_tables[i][2], dict_tables[i][1]);
    assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_free(sql);
  }
}

/* check_pair of `sql` with each @table replaced by the table and by its plain copy. */
static void dict_check(fixture *f, const char *sql) {
  char *q[2];
  for (int plain = 0; plain < 2; plain++) {
    size_t n = 0;
    q[plain] = malloc(strlen(sql) * 3 + 64);
    for (const char *p = sql; *p;) {
      size_t i = 0;
      while (i < NDICT_TABLES && strncmp(p, dict_tables[i][0], 3))
        i++;
      if (i == NDICT_TABLES) {
        q[plain][n++] = *p++;
        continue;
      }
      n += (size_t)sprintf(q[plain] + n, plain ? "\"x_%s\"" : "%s", dict_tables[i][1]);
      p += 3;
    }
    q[plain][n] = 0;
  }
  check_pair(f, q[0], q[1]);
  free(q[0]), free(q[1]);
}

/* Filters on the one-byte dictionary columns (answered per code, rows past the 254 codes by
** value) against plain SQLite: every operator with every constant, NULL tests and IN lists on
** each column; then several at once, with other columns, values in the side map (priority 150,
** common_flags 299), INT32_MIN, text that reads as a number, chained text predicates on one
** column, joins and aggregates over them. */
static void test_dict_filters(void **state) {
  fixture *f = *state;
  dict_copies(f->db);
  static const char *const cols[][2] = {
      {"@ss", "end_state"}, {"@ss", "ucpu"}, {"@ss", "priority"},    {"@ts", "state"},
      {"@fe", "name"},      {"@fe", "ucpu"}, {"@fe", "common_flags"}};
  char sql[1024];
  for (size_t c = 0; c < sizeof cols / sizeof *cols; c++) {
    for (size_t o = 0; o < NOPS; o++)
      for (size_t v = o % f->stride; v < NVALUES; v += f->stride) {
        snprintf(sql, sizeof sql, "SELECT id, %s FROM %s WHERE %s %s %s", cols[c][1], cols[c][0],
                 cols[c][1], ops[o], values[v]);
        dict_check(f, sql);
      }
    static const char *const shapes[] = {
        "SELECT id FROM %s WHERE %s IS NULL",
        "SELECT id FROM %s WHERE %s IS NOT NULL",
        "SELECT id FROM %s WHERE %s IN (NULL, 0, 2, '3', 7.0, 5.5, 'a', 'Task', x'00', 150, 299)",
        "SELECT id FROM %s WHERE %s NOT IN (1, 2, 'b') ORDER BY id DESC LIMIT 9",
        "SELECT id FROM %s WHERE %s = 'a' COLLATE NOCASE",
        "SELECT id FROM %s WHERE %s LIKE 'T%%'",
        "SELECT id FROM %s WHERE %s GLOB '[a-t]*' ORDER BY id DESC"};
    for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++) {
      snprintf(sql, sizeof sql, shapes[k], cols[c][0], cols[c][1]);
      dict_check(f, sql);
    }
  }
  static const char *const queries[] = {
      "SELECT id FROM @ss WHERE ucpu = 1 AND priority > 0",
      "SELECT ts, dur FROM @ss WHERE ucpu = '1' ORDER BY ts",
      "SELECT id FROM @ss WHERE priority IN (150, 299, -100, 5)",
      "SELECT id, priority FROM @ss WHERE priority = 150 ORDER BY id DESC",
      "SELECT id FROM @ss WHERE priority = -2147483648",
      "SELECT id FROM @ss WHERE priority BETWEEN 140 AND 160 AND utid = 2",
      "SELECT id FROM @ss WHERE end_state IS NULL AND ucpu != 7",
      "SELECT id FROM @ss WHERE end_state = 'Task' AND ucpu IN (1, 2)",
      "SELECT count(*), sum(dur) FROM @ss WHERE ucpu = 3",
      "SELECT ucpu, count(*) FROM @ss WHERE priority < 0 GROUP BY ucpu",
      "SELECT id FROM @ts WHERE state = 'a' AND utid = 3",
      "SELECT id FROM @ts WHERE state IN ('a', 'b', 'zzz', 3)",
      "SELECT id FROM @ts WHERE state LIKE 'T%' AND state GLOB '*a*'",
      "SELECT id FROM @ts WHERE state > 'a' AND state < 'x'",
      "SELECT id FROM @ts WHERE state = 'never seen'",
      "SELECT id FROM @fe WHERE common_flags >= 250 AND ucpu = 5",
      "SELECT id FROM @fe WHERE name = 'abc' AND ucpu IN (0, 5)",
      "SELECT id FROM @fe WHERE name IS NOT NULL AND common_flags = 2",
      "SELECT s.id, e.id FROM @ss s JOIN @fe e ON e.ucpu = s.ucpu AND e.common_flags = s.priority "
      "WHERE s.id < 60",
      "SELECT s.id FROM @ss s WHERE s.ucpu IN (SELECT ucpu FROM @fe WHERE name = 'a')",
  };
  for (size_t i = 0; i < sizeof queries / sizeof *queries; i++)
    dict_check(f, queries[i]);
}

/* The plans use the paths: an id lookup, a binary search, an index, ORDER BY consumed. */
static void test_plans(void **state) {
  fixture *f = *state;
  static const char *const want[][2] = {
      {"SELECT * FROM slice WHERE id = 5", "INDEX 0:A="},
      {"SELECT * FROM slice WHERE ts > 5", "INDEX 0:B>"},
      {"SELECT * FROM slice WHERE track_id IN (1, 2)", "INDEX 0:Di"},
      {"SELECT * FROM slice WHERE parent_id IS NULL", "INDEX 0:Hn"},
      {"SELECT * FROM slice ORDER BY id DESC", "INDEX 2:"},
      {"SELECT * FROM slice ORDER BY dur DESC, id LIMIT 3", ":@L"},
      {"SELECT * FROM slice WHERE name LIKE 'a%'", "INDEX 0:Fk"},
      {"SELECT * FROM slice WHERE name GLOB 'T*'", "Fb"},
      {"SELECT * FROM slice ORDER BY depth, dur DESC, id", "INDEX 85008:"},
      {"SELECT * FROM slice WHERE __utid IS NOT NULL", "INDEX 0:PN"},
  };
  for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
    char *sql = sqlite3_mprintf("EXPLAIN QUERY PLAN %s", want[i][0]);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(f->db, sql, -1, &st, NULL), SQLITE_OK);
    sqlite3_free(sql);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    const char *detail = (const char *)sqlite3_column_text(st, 3);
    if (!strstr(detail, want[i][1])) {
      fprintf(stderr, "%s: plan %s, want %s\n", want[i][0], detail, want[i][1]);
      fail();
    }
    sqlite3_finalize(st);
  }
}

/* Filtered scans read ahead in batches (vtab_scan.c): rows that pass far apart, none in whole
** batches, more than a batch holds, LIMIT and OFFSET stopping mid-batch, NULLs and text in the
** columns read, an index's candidates with and without a further filter, joins that filter the
** inner cursor again per row. */
static void test_read_ahead(void **state) {
  fixture *f = *state;
  static const char *const queries[] = {
      "SELECT id, ts, dur, name, parent_id, thread_ts FROM $slice WHERE dur = 12345",
      "SELECT id, ts FROM $slice WHERE dur = 12345 LIMIT 3",
      "SELECT id, ts FROM $slice WHERE dur = 12345 LIMIT 5 OFFSET 18",
      "SELECT id, ts FROM $slice WHERE dur = 12345 LIMIT 590 OFFSET 25",
      "SELECT id, depth, category, parent_id, thread_ts FROM $slice WHERE depth = 2",
      "SELECT id, ts, dur FROM $slice WHERE depth = 2 LIMIT 700",
      "SELECT id, ts, dur FROM $slice WHERE depth = 1 AND ts > 100 AND ts < 9000",
      "SELECT id, dur FROM $slice WHERE depth = 1 AND id > 3000 AND id < 9000",
      "SELECT id, name FROM $slice WHERE depth = 0 AND name LIKE 't%'",
      "SELECT id, name, ts FROM $slice WHERE depth = 3 ORDER BY name, ts, id",
      "SELECT id, ts, dur, thread_ts FROM $slice WHERE track_id = 2",
      "SELECT id, ts, dur FROM $slice WHERE track_id = 2 AND depth = 0",
      "SELECT id, ts FROM $slice WHERE track_id IN (1, 3) AND ts > 1000 AND ts < 5000",
      "SELECT id FROM $slice WHERE parent_id IS NULL AND dur = 12345",
      "SELECT COUNT(*), SUM(ts), MIN(thread_ts), MAX(parent_id) FROM $slice WHERE depth = 3",
      "SELECT a.id, b.id FROM $slice a JOIN $slice b ON b.depth = a.depth AND b.dur = a.dur "
      "WHERE a.dur = 12345 AND a.id < 5",
      "SELECT a.id, COUNT(b.id) FROM $slice a JOIN $slice b ON b.track_id = a.track_id "
      "AND b.depth = 0 WHERE a.id < 3 GROUP BY a.id",
  };
  for (size_t i = 0; i < sizeof queries / sizeof *queries; i++)
    check(f, queries[i]);
}

#define ALL_TESTS(setup)                                                                           \
  cmocka_unit_test_setup_teardown(test_single_constraints, setup, teardown),                       \
      cmocka_unit_test_setup_teardown(test_combined_constraints, setup, teardown),                 \
      cmocka_unit_test_setup_teardown(test_query_shapes, setup, teardown),                         \
      cmocka_unit_test_setup_teardown(test_text_filters, setup, teardown),                         \
      cmocka_unit_test_setup_teardown(test_computed_columns, setup, teardown),                     \
      cmocka_unit_test_setup_teardown(test_sorts, setup, teardown),                                \
      cmocka_unit_test_setup_teardown(test_dict_filters, setup, teardown)

#define INDEX_TESTS(setup)                                                                         \
  cmocka_unit_test_setup_teardown(test_single_constraints, setup, teardown),                       \
      cmocka_unit_test_setup_teardown(test_combined_constraints, setup, teardown),                 \
      cmocka_unit_test_setup_teardown(test_query_shapes, setup, teardown)

int main(void) {
  const struct CMUnitTest tests[] = {
      ALL_TESTS(setup_rows),
      ALL_TESTS(setup_empty),
      ALL_TESTS(setup_unsorted),
      INDEX_TESTS(setup_index_at_once),
      INDEX_TESTS(setup_index_never),
      cmocka_unit_test_setup_teardown(test_plans, setup_rows, teardown),
      cmocka_unit_test_setup_teardown(test_query_shapes, setup_large, teardown),
      cmocka_unit_test_setup_teardown(test_read_ahead, setup_ahead, teardown),
      cmocka_unit_test_setup_teardown(test_read_ahead, setup_rows, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
