/*
** Slice descriptions (docs/analysis.md): rules read from SliceDescriptionRules text (the
** built-in set, then `--descriptions` files) are compiled once into matchers, and the
** describe_slice table-valued function answers "what does slice N mean" from them, and
** "why was it slow": where scheduling data covers its thread, the slice's time running,
** runnable, sleeping, in uninterruptible sleep (and of that, IO) and the CPUs it ran on
** (slices.time_in_state's sums, sql/perfetto_sql/slice_thread_time.c).
**
** Matching stays cheap when joined over every slice: a pattern's verdict is memoised per
** string id (names are interned, so each distinct name is globbed once per pattern), and the
** rules whose name pattern matches a slice name are listed once per name id; a slice then only
** checks those candidates' other conditions, all integer compares after the first sight.
*/
#include <sqlite3.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "processor/analysis/analysis.h"
#include "processor/sql/perfetto_sql/psql.h"
#include "processor/tables/vtab_tvf.h"
#include "trak/pbtxt.h"
#include "trak/protos.h"

/* A name pattern with its verdict per string id (map value 1: no match, 2: match). */
typedef struct matcher {
  char *pattern;
  int glob;
  trak_map memo;
} matcher;

typedef struct rule {
  matcher name, parent, category, thread, process; /* pattern NULL: matches anything */
  matcher *ancestors;
  size_t n_ancestors;
  char *description, *doc_link;
} rule;

struct trak_rules {
  TRAK_VEC(rule) v;
  /* slice name id -> offset in cand of its candidate rules (highest priority first),
  ** terminated by UINT32_MAX */
  trak_map by_name;
  TRAK_VEC(uint32_t) cand;
};

static void matcher_init(matcher *m, const char *s, size_t len) {
  memset(m, 0, sizeof *m);
  m->pattern = strndup(s, len);
  if (!m->pattern) abort();
  m->glob = strpbrk(m->pattern, "*?[") != NULL;
}

static void matcher_free(matcher *m) {
  free(m->pattern);
  trak__map_free(&m->memo);
}

/* Whether string `id` (0: NULL) matches; an unset pattern matches anything. */
static int matcher_test(matcher *m, const trak_strpool *sp, uint32_t id) {
  if (!m->pattern) return 1;
  if (!id) return 0;
  int added;
  uint32_t *v = trak__map_put(&m->memo, id, 0, &added);
  if (!*v) {
    const char *s = trak__str(sp, id);
    *v = (m->glob ? sqlite3_strglob(m->pattern, s) == 0 : strcmp(m->pattern, s) == 0) ? 2 : 1;
  }
  return *v == 2;
}

static void rule_free(rule *r) {
  matcher_free(&r->name), matcher_free(&r->parent), matcher_free(&r->category);
  matcher_free(&r->thread), matcher_free(&r->process);
  for (size_t i = 0; i < r->n_ancestors; i++)
    matcher_free(&r->ancestors[i]);
  free(r->ancestors);
  free(r->description), free(r->doc_link);
}

void trak__rules_free(trak_rules *r) {
  if (!r) return;
  for (size_t i = 0; i < r->v.n; i++)
    rule_free(&r->v.v[i]);
  trak_vec_free(r->v);
  trak__map_free(&r->by_name);
  trak_vec_free(r->cand);
  free(r);
}

/* Decodes one SliceDescriptionRule into `r`. Returns 0 or TRAK_EFORMAT. */
static int rule_decode(rule *r, const trak_pb_field *msg, trak_error *err) {
  memset(r, 0, sizeof *r);
  trak_pb_decoder d;
  trak_pb_decoder_init(&d, msg->data, msg->len);
  trak_pb_field f;
  int rc;
  while ((rc = trak_pb_decoder_next(&d, &f)) > 0) {
    const char *s = (const char *)f.data;
    switch (f.number) {
    case TRAK_PB_SliceDescriptionRule_name:
      matcher_free(&r->name), matcher_init(&r->name, s, f.len);
      break;
    case TRAK_PB_SliceDescriptionRule_parent:
      matcher_free(&r->parent), matcher_init(&r->parent, s, f.len);
      break;
    case TRAK_PB_SliceDescriptionRule_category:
      matcher_free(&r->category), matcher_init(&r->category, s, f.len);
      break;
    case TRAK_PB_SliceDescriptionRule_thread_name:
      matcher_free(&r->thread), matcher_init(&r->thread, s, f.len);
      break;
    case TRAK_PB_SliceDescriptionRule_process_name:
      matcher_free(&r->process), matcher_init(&r->process, s, f.len);
      break;
    case TRAK_PB_SliceDescriptionRule_ancestor:
      r->ancestors = realloc(r->ancestors, (r->n_ancestors + 1) * sizeof *r->ancestors);
      if (!r->ancestors) abort();
      matcher_init(&r->ancestors[r->n_ancestors++], s, f.len);
      break;
    case TRAK_PB_SliceDescriptionRule_description:
      free(r->description), r->description = strndup(s, f.len);
      break;
    case TRAK_PB_SliceDescriptionRule_doc_link:
      free(r->doc_link), r->doc_link = strndup(s, f.len);
      break;
    }
  }
  if (rc < 0) return trak_pb_decoder_error(&d, err);
  if (!r->name.pattern || !r->description)
    return trak_error_set(err, TRAK_EFORMAT, "rule %s needs a name and a description",
                          r->name.pattern ? r->name.pattern : "(unnamed)");
  return 0;
}

static trak_rules *rules_get(trak_processor *p) {
  trak_analysis *a = trak__analysis(p);
  if (!a->rules) {
    a->rules = calloc(1, sizeof *a->rules);
    if (!a->rules) abort();
  }
  return a->rules;
}

static int rules_add_raw(trak_processor *p, const char *text, size_t len, const char *source,
                         trak_error *err) {
  trak_pb_buf buf;
  trak_pb_buf_init_heap(&buf);
  int rc = trak_pbtxt_parse("SliceDescriptionRules", text, len, &buf, err);
  size_t n;
  uint8_t *bin = trak_pb_buf_detach(&buf, &n);
  trak_rules *rs = rules_get(p);
  size_t first = rs->v.n;
  trak_pb_decoder d;
  trak_pb_decoder_init(&d, bin, n);
  trak_pb_field f;
  int more = 0;
  while (!rc && (more = trak_pb_decoder_next(&d, &f)) > 0) {
    if (f.number != TRAK_PB_SliceDescriptionRules_rule) continue;
    rule r;
    rc = rule_decode(&r, &f, err);
    if (rc)
      rule_free(&r);
    else
      trak_vec_push(rs->v, r);
  }
  if (!rc && more < 0) rc = trak_pb_decoder_error(&d, err);
  free(bin);
  if (rc) { /* all or nothing: drop the rules of this file */
    while (rs->v.n > first)
      rule_free(&rs->v.v[--rs->v.n]);
    trak_error_prefix(err, "%s", source);
    return rc;
  }
  trak__map_clear(&rs->by_name); /* candidate lists are stale */
  rs->cand.n = 0;
  return 0;
}

/* Offset in rs->cand of the rules whose name pattern matches name `id`, built on first sight. */
static uint32_t candidates(trak_rules *rs, const trak_strpool *sp, uint32_t id) {
  int added;
  uint32_t *off = trak__map_put(&rs->by_name, id, 0, &added);
  if (!added) return *off;
  uint32_t start = (uint32_t)rs->cand.n;
  for (size_t i = rs->v.n; i-- > 0;)
    if (matcher_test(&rs->v.v[i].name, sp, id)) trak_vec_push(rs->cand, (uint32_t)i);
  trak_vec_push(rs->cand, UINT32_MAX);
  *off = start; /* still valid: only other maps were written meanwhile */
  return start;
}

static int ancestors_match(matcher *m, const trak_tables *t, uint32_t slice) {
  for (uint32_t s = t->slice.parent_id[slice]; s != TRAK_NULL_U32; s = t->slice.parent_id[s])
    if (matcher_test(m, &t->strings, t->slice.name[s])) return 1;
  return 0;
}

static int rule_matches(rule *r, const trak_tables *t, uint32_t slice) {
  const trak_strpool *sp = &t->strings;
  if (!matcher_test(&r->category, sp, t->slice.category[slice])) return 0;
  uint32_t parent = t->slice.parent_id[slice];
  if (r->parent.pattern &&
      (parent == TRAK_NULL_U32 || !matcher_test(&r->parent, sp, t->slice.name[parent])))
    return 0;
  if (r->thread.pattern || r->process.pattern) {
    uint32_t track = t->slice.track_id[slice];
    uint32_t utid = t->track.utid[track], upid = t->track.upid[track];
    if (utid != TRAK_NULL_U32 && upid == TRAK_NULL_U32) upid = t->thread.upid[utid];
    if (!matcher_test(&r->thread, sp, utid == TRAK_NULL_U32 ? 0 : t->thread.name[utid])) return 0;
    if (!matcher_test(&r->process, sp, upid == TRAK_NULL_U32 ? 0 : t->process.name[upid])) return 0;
  }
  for (size_t i = 0; i < r->n_ancestors; i++)
    if (!ancestors_match(&r->ancestors[i], t, slice)) return 0;
  return 1;
}

/* Loads the built-in rules the first time rules are needed. */
static trak_rules *rules_ready(trak_processor *p) {
  trak_analysis *a = trak__analysis(p);
  if (!a->rules) {
    trak_error err;
    if (rules_add_raw(p, trak__builtin_rules, strlen(trak__builtin_rules), "built-in rules", &err))
      abort(); /* the embedded text is tested */
  }
  return a->rules;
}

int trak__rules_add(trak_processor *p, const char *text, size_t len, const char *source,
                    trak_error *err) {
  rules_ready(p);
  return rules_add_raw(p, text, len, source, err);
}

int trak__describe(trak_processor *p, uint32_t slice, const char **desc, const char **link) {
  trak_rules *rs = rules_ready(p);
  const trak_tables *t = &p->tables;
  uint32_t name = t->slice.name[slice];
  if (!name) return 0;
  for (uint32_t i = candidates(rs, &t->strings, name); rs->cand.v[i] != UINT32_MAX; i++) {
    rule *r = &rs->v.v[rs->cand.v[i]];
    if (!rule_matches(r, t, slice)) continue;
    *desc = r->description;
    *link = r->doc_link;
    return 1;
  }
  return 0;
}

/* ---- the describe_slice table-valued function ------------------------------------------ */

typedef struct ds_vtab {
  sqlite3_vtab base;
  trak_processor *p;
} ds_vtab;

/* The slice's time per kind of thread state (ns), summed from its thread_state rows. */
enum { ST_RUNNING, ST_RUNNABLE, ST_SLEEPING, ST_UNINTERRUPTIBLE, ST_IO_WAIT, ST_OTHER, ST_KINDS };

typedef struct ds_cursor {
  sqlite3_vtab_cursor base;
  int64_t slice;
  const char *desc, *link; /* NULL when no rule describes the slice */
  int have_states;         /* scheduling data covers the slice's thread during it */
  int64_t states[ST_KINDS];
  char cpus[256]; /* the CPUs it ran on, "0,3" */
  int eof;
} ds_cursor;

enum {
  DS_DESCRIPTION,
  DS_DOC_LINK,
  DS_RUNNING,
  DS_SLICE_ID = DS_RUNNING + ST_KINDS + 1 /* after the state columns and cpus */
};

static int ds_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out,
                      char **err) {
  (void)argc, (void)argv, (void)err;
  return trak__tvf_connect(
      db,
      "CREATE TABLE x(description TEXT, doc_link TEXT, running_dur BIGINT, "
      "runnable_dur BIGINT, sleeping_dur BIGINT, uninterruptible_dur BIGINT, "
      "io_wait_dur BIGINT, other_dur BIGINT, cpus TEXT, slice_id BIGINT HIDDEN)",
      sizeof(ds_vtab), offsetof(ds_vtab, p), aux, out);
}

/* The kind of thread state `state` (a string id) is: Running; R and R+ runnable; S and I
** (idle) sleeping; D and its variants (DK, ...) uninterruptible; anything else other. */
static int state_kind(const trak_strpool *sp, uint32_t state) {
  const char *s = trak__str(sp, state);
  if (!s) return ST_OTHER;
  if (!strcmp(s, "Running")) return ST_RUNNING;
  if (!strcmp(s, "R") || !strcmp(s, "R+")) return ST_RUNNABLE;
  if (!strcmp(s, "S") || !strcmp(s, "I")) return ST_SLEEPING;
  return s[0] == 'D' ? ST_UNINTERRUPTIBLE : ST_OTHER;
}

/* The index of thread states, rebuilt when rows were appended since it was made; NULL out of
** memory. */
static trak_thread_time *thread_time(trak_processor *p) {
  trak_analysis *a = trak__analysis(p);
  const trak_tables *t = &p->tables;
  if (a->thread_time &&
      (a->thread_time_generation != t->generation || a->thread_time_slices != t->slice.n)) {
    trak__thread_time_free(a->thread_time);
    a->thread_time = NULL;
  }
  if (!a->thread_time) {
    a->thread_time = trak__thread_time_new(t, 0);
    a->thread_time_generation = t->generation;
    a->thread_time_slices = t->slice.n;
  }
  return a->thread_time;
}

static int cpu_cmp(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

/* Sums slice c->slice's thread states into c->states and lists its CPUs. Returns SQLITE_OK
** or SQLITE_NOMEM. */
static int ds_states(ds_cursor *c, trak_processor *p) {
  const trak_tables *t = &p->tables;
  trak_thread_time *tt = thread_time(p);
  const trak_thread_time_group *g;
  size_t n;
  memset(c->states, 0, sizeof c->states);
  c->cpus[0] = 0;
  if (!tt || trak__thread_time_slice(tt, (uint32_t)c->slice, 1, &g, &n)) return SQLITE_NOMEM;
  c->have_states = n > 0;
  uint32_t cpus[64];
  size_t ncpus = 0;
  for (size_t i = 0; i < n; i++) {
    int kind = state_kind(&t->strings, g[i].state);
    c->states[kind] += g[i].dur;
    if (kind == ST_UNINTERRUPTIBLE && g[i].io_wait == 1) c->states[ST_IO_WAIT] += g[i].dur;
    if (kind != ST_RUNNING || g[i].ucpu == TRAK_NULL_U32) continue;
    uint32_t cpu = g[i].ucpu < t->cpu.n && t->cpu.cpu[g[i].ucpu] != TRAK_NULL_U32
                       ? t->cpu.cpu[g[i].ucpu]
                       : g[i].ucpu;
    size_t k = 0;
    while (k < ncpus && cpus[k] != cpu)
      k++;
    if (k == ncpus && ncpus < sizeof cpus / sizeof *cpus) cpus[ncpus++] = cpu;
  }
  qsort(cpus, ncpus, sizeof *cpus, cpu_cmp);
  size_t w = 0;
  for (size_t k = 0; k < ncpus && w + 12 < sizeof c->cpus; k++)
    w += (size_t)snprintf(c->cpus + w, sizeof c->cpus - w, "%s%u", k ? "," : "", cpus[k]);
  return SQLITE_OK;
}

/* Only plans with `slice_id = x` are usable: there is no listing of every description. */
static int ds_best_index(sqlite3_vtab *vt, sqlite3_index_info *info) {
  (void)vt;
  static const trak_tvf_args args = {
      .first = DS_SLICE_ID, .n = 1, .cost = 2, .rows = 1, .unique = 1};
  return trak__tvf_best_index(info, &args);
}

static int ds_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out) {
  ds_cursor *c = sqlite3_malloc(sizeof *c);
  if (!c) return SQLITE_NOMEM;
  memset(c, 0, sizeof *c);
  c->eof = 1;
  *out = &c->base;
  return SQLITE_OK;
}

static int ds_close(sqlite3_vtab_cursor *cur) {
  sqlite3_free(cur);
  return SQLITE_OK;
}

static int ds_filter(sqlite3_vtab_cursor *cur, int idx, const char *plan, int argc,
                     sqlite3_value **argv) {
  ds_cursor *c = (ds_cursor *)cur;
  trak_processor *p = ((ds_vtab *)cur->pVtab)->p;
  c->eof = 1;
  if (idx != 1 || argc < 1 || sqlite3_value_type(argv[0]) != SQLITE_INTEGER) return SQLITE_OK;
  c->slice = sqlite3_value_int64(argv[0]);
  if (c->slice < 0 || (uint64_t)c->slice >= p->tables.slice.n) return SQLITE_OK;
  if (!trak__describe(p, (uint32_t)c->slice, &c->desc, &c->link)) c->desc = c->link = NULL;
  int rc = ds_states(c, p);
  c->eof = !c->desc && !c->have_states;
  return rc;
}

static int ds_next(sqlite3_vtab_cursor *cur) {
  ((ds_cursor *)cur)->eof = 1;
  return SQLITE_OK;
}

static int ds_eof(sqlite3_vtab_cursor *cur) {
  return ((ds_cursor *)cur)->eof;
}

static int ds_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col) {
  ds_cursor *c = (ds_cursor *)cur;
  if (col == DS_SLICE_ID)
    sqlite3_result_int64(ctx, c->slice);
  else if (col == DS_DESCRIPTION && c->desc)
    sqlite3_result_text(ctx, c->desc, -1, SQLITE_STATIC);
  else if (col == DS_DOC_LINK && c->link)
    sqlite3_result_text(ctx, c->link, -1, SQLITE_STATIC);
  else if (col >= DS_RUNNING && col < DS_RUNNING + ST_KINDS && c->have_states)
    sqlite3_result_int64(ctx, c->states[col - DS_RUNNING]);
  else if (col == DS_RUNNING + ST_KINDS && c->have_states && c->cpus[0])
    sqlite3_result_text(ctx, c->cpus, -1, SQLITE_TRANSIENT);
  return SQLITE_OK;
}

static int ds_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid) {
  *rowid = ((ds_cursor *)cur)->slice;
  return SQLITE_OK;
}

static const sqlite3_module ds_module = {
    .iVersion = 1,
    .xCreate = NULL, /* eponymous-only */
    .xConnect = ds_connect,
    .xBestIndex = ds_best_index,
    .xDisconnect = trak__tvf_disconnect,
    .xDestroy = trak__tvf_disconnect,
    .xOpen = ds_open,
    .xClose = ds_close,
    .xFilter = ds_filter,
    .xNext = ds_next,
    .xEof = ds_eof,
    .xColumn = ds_column,
    .xRowid = ds_rowid,
};

int trak__describe_register(trak_processor *p) {
  return sqlite3_create_module(p->db, "describe_slice", &ds_module, p);
}
