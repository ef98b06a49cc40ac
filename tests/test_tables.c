/*
** Tests of the columnar tables generated from tables/table_defs.h: a pushed row holds every
** column's default, growth keeps the rows, optional columns stay absent until asked for and
** then cover every row, and the SQL columns are the list's (hidden ones left out, aliases and
** virtual ones in) as a query sees them.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "processor/tables/arg_value.h"
#include "processor/tables/sched_cols.h"
#include "processor/tables/storage.h"
#include "processor/tables/thread_state_cols.h"
#include "processor/tables/vtab.h"
#include "testutil.h"

/* thread_state's packed columns: a new row reads as Perfetto's NULLs and dur -1; each shape
** (Running, woken by a running thread or not, blocked) reads back what was written, the others
** NULL; durations past 32 bits, negative ones and a dur set twice keep their value; the SQL
** columns (computed) read the same. */
static void test_thread_state_packed(void **state) {
  (void)state;
  trak_tables t;
  trak__tables_init(&t);
  for (int i = 0; i < 5; i++)
    trak__thread_state_push(&t);
  for (uint32_t r = 0; r < 5; r++) {
    assert_true(trak__ts_dur(&t, r) == -1);
    assert_int_equal(trak__ts_ucpu(&t, r), TRAK_NULL_U32);
    assert_int_equal(trak__ts_waker_utid(&t, r), TRAK_NULL_U32);
    assert_int_equal(trak__ts_waker_id(&t, r), TRAK_NULL_U32);
    assert_int_equal(trak__ts_blocked_function(&t, r), 0);
    assert_int_equal(trak__ts_io_wait(&t, r), 2);
    assert_int_equal(trak__ts_irq_context(&t, r), 2);
  }
  t.thread_state.utid[0] = 9;
  trak__ts_aux_set(&t, 0, TRAK_TS_AUX_UCPU, 4097);
  trak__ts_aux_set(&t, 1, TRAK_TS_AUX_WAKER_ROW, 0);
  trak__ts_irq_context_set(&t, 1, 1);
  trak__ts_aux_set(&t, 2, TRAK_TS_AUX_WAKER_UTID, 33);
  trak__ts_aux_set(&t, 3, TRAK_TS_AUX_BLOCKED, 77);
  trak__ts_io_wait_set(&t, 3, 0);
  assert_int_equal(trak__ts_ucpu(&t, 0), 4097);
  assert_int_equal(trak__ts_waker_id(&t, 0), TRAK_NULL_U32);
  assert_int_equal(trak__ts_waker_id(&t, 1), 0);
  assert_int_equal(trak__ts_waker_utid(&t, 1), 9);
  assert_int_equal(trak__ts_irq_context(&t, 1), 1);
  assert_int_equal(trak__ts_io_wait(&t, 1), 2);
  assert_int_equal(trak__ts_ucpu(&t, 1), TRAK_NULL_U32);
  assert_int_equal(trak__ts_waker_utid(&t, 2), 33);
  assert_int_equal(trak__ts_waker_id(&t, 2), TRAK_NULL_U32);
  assert_int_equal(trak__ts_blocked_function(&t, 3), 77);
  assert_int_equal(trak__ts_io_wait(&t, 3), 0);
  assert_int_equal(trak__ts_irq_context(&t, 3), 2);
  assert_int_equal(trak__ts_waker_utid(&t, 3), TRAK_NULL_U32);
  const int64_t durs[5] = {0, 4294967293LL, 4294967294LL, 9000000000000LL, -5};
  for (uint32_t r = 0; r < 5; r++)
    trak__ts_dur_set(&t, r, durs[r]);
  trak__ts_dur_set(&t, 3, INT64_MAX); /* set again: the same overflow slot */
  assert_true(trak__ts_dur(&t, 0) == 0 && trak__ts_dur(&t, 1) == 4294967293LL);
  assert_true(trak__ts_dur(&t, 2) == 4294967294LL && trak__ts_dur(&t, 3) == INT64_MAX);
  assert_true(trak__ts_dur(&t, 4) == -5);
  assert_int_equal(t.ts_wide.dur.n, 3);
  /* the SQL columns */
  const vt_table *vt = &trak__vt_thread_state;
  int64_t v;
  for (int c = 0; c < vt->ncols; c++) {
    const vt_col *col = &vt->cols[c];
    if (!strcmp(col->name, "dur")) {
      assert_int_equal(trak__vt_calc(&t, col->calc, 3, &v), 1);
      assert_true(v == INT64_MAX);
    } else if (!strcmp(col->name, "ucpu")) {
      assert_int_equal(trak__vt_calc(&t, col->calc, 0, &v), 1);
      assert_int_equal(v, 4097);
      assert_int_equal(trak__vt_calc(&t, col->calc, 1, &v), 0);
    } else if (!strcmp(col->name, "waker_utid")) {
      assert_int_equal(trak__vt_calc(&t, col->calc, 1, &v), 1);
      assert_int_equal(v, 9);
    }
  }
  trak__tables_free(&t);
}

/* The one-byte columns (trak_dict8): a new row reads 0; 600 distinct values (past the 254
** codes) and negative priorities read back, set again they keep the last; the SQL columns
** read the same; a row coded past 254 values costs a `wide` entry, the others none. */
static void test_dict8_columns(void **state) {
  (void)state;
  trak_tables t;
  trak__tables_init(&t);
  for (int i = 0; i < 600; i++) {
    trak__sched_slice_push(&t);
    trak__ftrace_event_push(&t);
    trak__thread_state_push(&t);
  }
  assert_int_equal(trak__ss_priority(&t, 3), 0);
  assert_int_equal(trak__fe_name(&t, 3), 0);
  assert_int_equal(trak__ts_state(&t, 3), 0);
  for (uint32_t r = 0; r < 600; r++) {
    trak__ss_priority_set(&t, r, (int32_t)r - 300);
    trak__fe_name_set(&t, r, 1000 + r);
    trak__fe_common_flags_set(&t, r, (uint16_t)(r % 7));
    trak__ts_state_set(&t, r, r % 3 + 1);
  }
  trak__fe_name_set(&t, 599, 1000); /* set again: to a value with a code */
  for (uint32_t r = 0; r < 600; r++) {
    assert_int_equal(trak__ss_priority(&t, r), (int32_t)r - 300);
    assert_int_equal(trak__fe_name(&t, r), r == 599 ? 1000 : 1000 + r);
    assert_int_equal(trak__fe_common_flags(&t, r), r % 7);
    assert_int_equal(trak__ts_state(&t, r), r % 3 + 1);
  }
  assert_int_equal(t.dict.fe_name.n, 254);
  assert_int_equal(t.dict.fe_name.wide.n, 600 - 254);
  assert_int_equal(t.dict.ts_state.wide.n, 0);
  /* The filters' view of the seven columns (trak__vt_dict) reads every row as the SQL column
  ** does; other computed columns have none. */
  const vt_table *dict_tables[] = {&trak__vt_sched_slice, &trak__vt_ftrace_event,
                                   &trak__vt_thread_state};
  int ndict = 0;
  for (int k = 0; k < 3; k++)
    for (int c = 0; c < dict_tables[k]->ncols; c++) {
      const vt_col *col = &dict_tables[k]->cols[c];
      vt_dict d;
      if (!col->calc || !trak__vt_dict(&t, col->calc, &d)) continue;
      ndict++;
      for (uint32_t r = 0; r < 600; r++) {
        int64_t want = 0, got = 0;
        int present = trak__vt_calc(&t, col->calc, r, &want);
        assert_int_equal(trak__vt_dict_value(&d, trak__dict8_get(d.dict, d.codes, r), &got),
                         present);
        if (present) assert_true(got == want);
      }
    }
  assert_int_equal(ndict, 7);
  const vt_table *vt = &trak__vt_sched_slice;
  int64_t v;
  for (int c = 0; c < vt->ncols; c++)
    if (!strcmp(vt->cols[c].name, "priority")) {
      assert_int_equal(trak__vt_calc(&t, vt->cols[c].calc, 10, &v), 1);
      assert_true(v == -290);
      assert_int_equal(trak__vt_calc(&t, vt->cols[c].calc, 500, &v), 1);
      assert_true(v == 200);
    }
  trak__tables_free(&t);
}

static void test_push_defaults(void **state) {
  (void)state;
  trak_tables t;
  trak__tables_init(&t);
  uint32_t s = trak__slice_add(&t, 5, 1, 0, 0, 0, TRAK_NULL_U32, TRAK_NULL_U32);
  assert_int_equal(s, 0);
  assert_int_equal(t.slice.dur[s], -1);
  assert_int_equal(t.slice.ts[s], 5);
  assert_null(t.slice.thread_ts); /* optional: absent until asked for */
  uint32_t th = trak__thread_add(&t, 42);
  assert_int_equal(t.thread.tid[th], 42);
  assert_int_equal(t.thread.is_main[th], 2);
  assert_int_equal(t.thread.upid[th], TRAK_NULL_U32);
  uint32_t pr = trak__process_push(&t);
  assert_true(t.process.start_ts[pr] == INT64_MIN);
  assert_true(t.process.uid[pr] == INT64_MIN);
  assert_int_equal(t.process.parent_upid[pr], TRAK_NULL_U32);
  uint32_t tr = trak__track_add(&t, TRAK_TRACK_PROCESS);
  assert_int_equal(t.track.kind[tr], TRAK_TRACK_PROCESS);
  assert_string_equal(trak__str(&t.strings, t.track.classification[tr]), "process_track");
  assert_int_equal(t.track.parent_id[tr], TRAK_NULL_U32);
  uint32_t m0 = trak__machine_add(&t, 0), m1 = trak__machine_add(&t, 7);
  assert_int_equal(t.machine.label_index[m0], 0);
  assert_int_equal(t.machine.label_index[m1], 1);
  assert_true(t.machine.num_cpus[m1] == INT64_MIN);
  uint32_t a = trak__arg_add(&t, 0, 1, 1, TRAK_ARG_REAL);
  assert_true(trak__arg_real(&t, a) == 0 && trak__arg_int(&t, a) == 0);
  assert_int_equal(trak__arg_str(&t, a), 0);
  trak__tables_free(&t);
}

/* Rows survive growth, and optional columns added midway cover old and new rows. */
static void test_growth_and_optional(void **state) {
  (void)state;
  trak_tables t;
  trak__tables_init(&t);
  for (int64_t i = 0; i < 1000; i++)
    trak__slice_add(&t, i, (uint32_t)i, 0, 0, 0, TRAK_NULL_U32, TRAK_NULL_U32);
  trak__tables_thread_time(&t);
  assert_non_null(t.slice.thread_ts);
  for (size_t i = 0; i < t.slice.cap; i++)
    assert_true(t.slice.thread_icd[i] == INT64_MIN);
  t.slice.thread_ts[3] = 33;
  for (int64_t i = 1000; i < 5000; i++)
    trak__slice_add(&t, i, (uint32_t)i, 0, 0, 0, TRAK_NULL_U32, TRAK_NULL_U32);
  trak__tables_reserve(&t, 100000, 10);
  assert_true(t.slice.cap >= 100000);
  for (uint32_t i = 0; i < 5000; i++) {
    assert_int_equal(t.slice.ts[i], i);
    assert_int_equal(t.slice.track_id[i], i);
    assert_int_equal(t.slice.dur[i], -1);
    if (i != 3) assert_true(t.slice.thread_ts[i] == INT64_MIN);
  }
  assert_int_equal(t.slice.thread_ts[3], 33);
  assert_true(t.slice.thread_dur[99999] == INT64_MIN);
  /* the reserved columns are of small pages: a huge page costs a dozen times more per byte to
  ** zero on the machines measured (no /proc: nothing to check) */
  int nh = tu_no_huge_pages(&t.slice.ts[50000]);
  if (nh >= 0) assert_int_equal(nh, 1);
  nh = tu_no_huge_pages(&t.slice.name[50000]);
  if (nh >= 0) assert_int_equal(nh, 1);
  trak__tables_free(&t);
  assert_null(t.slice.ts);
}

/* An empty table may still get its optional columns. */
static void test_optional_on_empty(void **state) {
  (void)state;
  trak_tables t;
  trak__tables_init(&t);
  trak__tables_thread_time(&t);
  assert_non_null(t.slice.thread_ts);
  trak__slice_add(&t, 1, 0, 0, 0, 0, TRAK_NULL_U32, TRAK_NULL_U32);
  assert_true(t.slice.thread_ts[0] == INT64_MIN);
  trak__tables_free(&t);
}

static char *column_names(sqlite3 *db, const char *table) {
  static char out[1024];
  out[0] = 0;
  char *sql = sqlite3_mprintf("select group_concat(name, ',') from pragma_table_info(%Q)", table);
  sqlite3_stmt *st;
  assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
  sqlite3_free(sql);
  if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
    snprintf(out, sizeof out, "%s", (const char *)sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  return out;
}

/* The virtual tables show the lists of table_defs.h: hidden columns out, aliases in. */
static void test_sql_columns(void **state) {
  (void)state;
  trak_tables t;
  trak__tables_init(&t);
  uint32_t tr = trak__track_add(&t, TRAK_TRACK_THREAD);
  uint32_t s =
      trak__slice_add(&t, 10, tr, trak__strpool_intern(&t.strings, "cat", 3),
                      trak__strpool_intern(&t.strings, "n", 1), 0, TRAK_NULL_U32, TRAK_NULL_U32);
  t.slice.dur[s] = 4;
  sqlite3 *db;
  assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
  assert_int_equal(trak__vtab_register(db, &t, NULL, NULL), SQLITE_OK);
  assert_string_equal(column_names(db, "slice"),
                      "id,ts,dur,track_id,category,name,depth,parent_id,arg_set_id,thread_ts,"
                      "thread_dur,thread_instruction_count,thread_instruction_delta,cat,slice_id");
  assert_string_equal(column_names(db, "__intrinsic_track"),
                      "id,name,type,dimension_arg_set_id,parent_id,source_arg_set_id,machine_id,"
                      "track_group_id,utid,upid,unit,description,classification");
  sqlite3_stmt *st;
  assert_int_equal(sqlite3_prepare_v2(db,
                                      "select s.cat, s.dur, s.thread_ts is null, s.slice_id, "
                                      "t.classification from slice s join __intrinsic_track t "
                                      "on t.id = s.track_id where s.ts = 10",
                                      -1, &st, NULL),
                   SQLITE_OK);
  assert_int_equal(sqlite3_step(st), SQLITE_ROW);
  assert_string_equal((const char *)sqlite3_column_text(st, 0), "cat");
  assert_int_equal(sqlite3_column_int64(st, 1), 4);
  assert_int_equal(sqlite3_column_int64(st, 2), 1);
  assert_int_equal(sqlite3_column_int64(st, 3), s);
  assert_string_equal((const char *)sqlite3_column_text(st, 4), "thread_track");
  assert_int_equal(sqlite3_step(st), SQLITE_DONE);
  sqlite3_finalize(st);
  sqlite3_close(db);
  trak__tables_free(&t);
}

/* The slot map (the arg-set share map): 300,000 keys (0, consecutive ones, random ones) each
** keep the value they were inserted with through every growth, past the 2 MiB from which the
** slots are whole huge pages; a second put finds the first value and adds nothing; absent keys
** are added. */
static void test_slot_map(void **state) {
  (void)state;
  enum { N = 300000 };
  uint64_t *keys = malloc(N * sizeof *keys);
  assert_non_null(keys);
  uint64_t x = 0x9e3779b97f4a7c15ULL;
  for (uint32_t i = 0; i < N; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    keys[i] = i < 1000 ? i : x; /* 0 and small consecutive keys, then random ones */
  }
  trak_slot_map m = {0};
  int added;
  for (uint32_t i = 0; i < N; i++) {
    (void)trak__slot_map_put(&m, keys[i], i, &added);
    assert_int_equal(added, 1);
  }
  assert_int_equal(m.n, N);
  assert_true(m.cap * sizeof(trak_slot) >= ((size_t)2 << 20));
  for (uint32_t i = 0; i < N; i++) {
    uint32_t *v = trak__slot_map_put(&m, keys[i], 12345678, &added);
    assert_int_equal(added, 0);
    assert_int_equal(*v, i);
  }
  assert_int_equal(m.n, N);
  uint32_t *v = trak__slot_map_put(&m, 0xffffffffffffffffULL, 7, &added);
  assert_int_equal(added, 1);
  assert_int_equal(*v, 7);
  trak__slot_map_free(&m);
  assert_null(m.slots);
  assert_int_equal(m.cap, 0);
  free(keys);
}

/* trak__slot_map_release gives up the map's mapped arrays whole, each big enough for what it
** held (the keys and values always; the slots only from 64 KiB on, freed below that), every
** byte writable and each unmapped by its taker; the map is empty after it. */
static void test_slot_map_release(void **state) {
  (void)state;
  const size_t sizes[] = {100, 100000};
  for (size_t s = 0; s < 2; s++) {
    trak_slot_map m = {0};
    int added;
    for (uint64_t k = 0; k < sizes[s]; k++)
      (void)trak__slot_map_put(&m, k * 0x9e3779b97f4a7c15ULL, (uint32_t)k, &added);
    size_t n = m.n, slot_bytes = m.cap * sizeof(trak_slot);
    trak_region r[3];
    size_t got = trak__slot_map_release(&m, r);
    assert_int_equal(got, slot_bytes >= ((size_t)64 << 10) ? 3 : 2);
    assert_int_equal(got, s ? 3 : 2);
    assert_true(r[0].bytes >= n * sizeof(uint64_t)); /* the keys */
    assert_true(r[1].bytes >= n * sizeof(uint32_t)); /* the values */
    if (got == 3) assert_int_equal(r[2].bytes, slot_bytes);
    for (size_t i = 0; i < got; i++) {
      memset(r[i].p, 0xa5, r[i].bytes);
      assert_int_equal(munmap(r[i].p, r[i].bytes), 0);
    }
    assert_null(m.slots);
    assert_null(m.keys);
    assert_null(m.vals);
    assert_int_equal(m.n, 0);
    assert_int_equal(m.cap, 0);
    trak__slot_map_free(&m); /* (an empty map: nothing) */
  }
}

/* The key whose trak__slot_hash is `h` (the hash undone: each xor-shift by 33 is its own
** inverse, and the odd multiplier has an inverse modulo 2^64). */
static uint64_t key_of_hash(uint64_t h) {
  const uint64_t c = 0xff51afd7ed558ccdULL;
  uint64_t inv = c; /* Newton's iteration: each step doubles the correct low bits */
  for (int i = 0; i < 6; i++)
    inv *= 2 - c * inv;
  h ^= h >> 33;
  h *= inv;
  h ^= h >> 33;
  return h;
}

/* Keys whose hashes share their top 32 bits (the bits a slot keeps, and the home slot) are told
** apart by the keys kept beside the slots: 2,000 of them, among 200,000 random keys that grow the
** map through its mapped sizes, each keep their own value. */
static void test_slot_map_same_hash_bits(void **state) {
  (void)state;
  enum { N = 200000 }; /* every 100th key of the same hash bits */
  uint64_t *keys = malloc(N * sizeof *keys);
  assert_non_null(keys);
  uint64_t x = 0x2545f4914f6cdd1dULL;
  for (uint32_t i = 0; i < N; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    keys[i] = i % 100 == 0 ? key_of_hash(0xabcdef0100000000ULL | (i / 100 + 1)) : x;
  }
  assert_int_equal(trak__slot_hash(keys[0]) >> 32, 0xabcdef01u);
  assert_int_equal(trak__slot_hash(keys[N - 100]) >> 32, 0xabcdef01u);
  trak_slot_map m = {0};
  int added;
  for (uint32_t i = 0; i < N; i++) {
    *trak__slot_map_put(&m, keys[i], 0, &added) = i;
    assert_int_equal(added, 1);
  }
  for (uint32_t i = 0; i < N; i++) {
    assert_int_equal(*trak__slot_map_put(&m, keys[i], 0, &added), i);
    assert_int_equal(added, 0);
  }
  assert_int_equal(m.n, N);
  /* one more key of those hash bits is new */
  assert_int_equal(*trak__slot_map_put(&m, key_of_hash(0xabcdef0100000000ULL), 9, &added), 9);
  assert_int_equal(added, 1);
  trak__slot_map_free(&m);
  free(keys);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_slot_map),
      cmocka_unit_test(test_slot_map_release),           cmocka_unit_test(test_slot_map_same_hash_bits),
      cmocka_unit_test(test_push_defaults),       cmocka_unit_test(test_thread_state_packed),
      cmocka_unit_test(test_growth_and_optional), cmocka_unit_test(test_optional_on_empty),
      cmocka_unit_test(test_sql_columns),        cmocka_unit_test(test_dict8_columns),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
