/*
** This file holds the columnar fetch behind trak_query_fetch_columns: a batch of rows stepped
** from SQLite and stored column by column (integers, doubles, null masks, and strings as codes
** into a dictionary per column), so that a caller such as the Python package can move a whole
** result into arrays without touching each value. Trace columns repeat few strings (names,
** categories), so the dictionary keeps the strings handed over small.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "processor/sql/column_fetch.h"

#define DEFAULT_BATCH 65536

/* The distinct strings of one column, for the whole query. */
typedef struct dict {
  uint32_t *slots;  /* open addressing: code + 1, 0 for an empty slot */
  uint32_t n_slots; /* a power of two, at least twice n */
  uint32_t n;       /* strings held; codes are 0..n-1 */
  uint64_t *hashes; /* hash of string `code` */
  uint64_t *offs;   /* n + 1 offsets of the strings in bytes (each followed by a NUL) */
  char *bytes;
  size_t len, cap;      /* bytes used / allocated */
  size_t n_alloc;       /* entries allocated in hashes and offs */
  uint32_t batch_first; /* first code added by the current batch */
  int batch_has_nul;    /* a string of the current batch holds a NUL */
} dict;

typedef struct column {
  uint8_t *types; /* SQLITE_* type of each row of the batch */
  uint8_t *nulls;
  int64_t *ints;
  double *doubles;
  int32_t *codes;
  uint64_t *new_offsets; /* handed out: offsets relative to the batch's first new string */
  size_t new_offsets_cap;
  dict d;
} column;

struct trak__columns {
  int n_cols;
  int done;        /* the statement returned SQLITE_DONE or an error: stepping again would
                   ** run it anew */
  size_t cap_rows; /* rows allocated in each column's arrays */
  column *cols;
};

static uint64_t hash_bytes(const void *data, size_t len) {
  const unsigned char *s = data;
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (size_t i = 0; i < len; i++)
    h = (h ^ s[i]) * 1099511628211ull;
  return h ^ (h >> 29);
}

/* Doubles the slot table. Returns 0 or -1 (out of memory, the table unchanged). */
static int dict_grow_slots(dict *d) {
  uint32_t n_slots = d->n_slots ? d->n_slots * 2 : 1024;
  uint32_t *slots = calloc(n_slots, sizeof *slots);
  if (!slots) return -1;
  for (uint32_t code = 0; code < d->n; code++) {
    uint32_t i = (uint32_t)d->hashes[code] & (n_slots - 1);
    while (slots[i])
      i = (i + 1) & (n_slots - 1);
    slots[i] = code + 1;
  }
  free(d->slots);
  d->slots = slots;
  d->n_slots = n_slots;
  return 0;
}

/* Appends a new string; returns its code or -1 when out of memory. */
static int64_t dict_add(dict *d, const char *s, size_t len, uint64_t h, uint32_t slot) {
  if (d->n + 2 > d->n_alloc) {
    size_t n = d->n_alloc ? d->n_alloc * 2 : 256;
    uint64_t *hashes = realloc(d->hashes, n * sizeof *hashes);
    if (!hashes) return -1;
    d->hashes = hashes;
    uint64_t *offs = realloc(d->offs, n * sizeof *offs);
    if (!offs) return -1;
    d->offs = offs;
    d->n_alloc = n;
  }
  if (d->len + len + 1 > d->cap) {
    size_t cap = d->cap ? d->cap : 4096;
    while (cap < d->len + len + 1)
      cap *= 2;
    char *bytes = realloc(d->bytes, cap);
    if (!bytes) return -1;
    d->bytes = bytes;
    d->cap = cap;
  }
  memcpy(d->bytes + d->len, s, len);
  d->bytes[d->len + len] = 0;
  if (memchr(s, 0, len)) d->batch_has_nul = 1;
  uint32_t code = d->n++;
  d->offs[code] = d->len;
  d->len += len + 1;
  d->offs[d->n] = d->len;
  d->hashes[code] = h;
  d->slots[slot] = code + 1;
  return code;
}

/* The code of `s` in the dictionary, adding it when new; -1 when out of memory. */
static int64_t dict_intern(dict *d, const char *s, size_t len) {
  if ((d->n + 1) * 2 > d->n_slots && dict_grow_slots(d)) return -1;
  if (d->n >= INT32_MAX) return -1;
  uint64_t h = hash_bytes(s, len);
  uint32_t i = (uint32_t)h & (d->n_slots - 1);
  for (uint32_t code; (code = d->slots[i]); i = (i + 1) & (d->n_slots - 1)) {
    code--;
    if (d->hashes[code] == h && d->offs[code + 1] - d->offs[code] == len + 1 &&
        !memcmp(d->bytes + d->offs[code], s, len))
      return code;
  }
  return dict_add(d, s, len, h, i);
}

static void column_free(column *c) {
  free(c->types);
  free(c->nulls);
  free(c->ints);
  free(c->doubles);
  free(c->codes);
  free(c->new_offsets);
  free(c->d.slots);
  free(c->d.hashes);
  free(c->d.offs);
  free(c->d.bytes);
}

void trak__columns_free(trak__columns *c) {
  if (!c) return;
  for (int i = 0; i < c->n_cols; i++)
    column_free(&c->cols[i]);
  free(c->cols);
  free(c);
}

/* Makes room for `rows` rows in every column. Returns 0 or -1 (out of memory). */
static int reserve_rows(trak__columns *c, size_t rows) {
  if (rows <= c->cap_rows) return 0;
  for (int i = 0; i < c->n_cols; i++) {
    column *col = &c->cols[i];
#define GROW(field)                                                                                \
  do {                                                                                             \
    void *p = realloc(col->field, rows * sizeof *col->field);                                      \
    if (!p) return -1;                                                                             \
    col->field = p;                                                                                \
  } while (0)
    GROW(types);
    GROW(nulls);
    GROW(ints);
    GROW(doubles);
    GROW(codes);
#undef GROW
  }
  c->cap_rows = rows;
  return 0;
}

/* Stores the current row's value of column `i` at row `r`. Returns 0 or -1 (out of memory).
** One sqlite3_column_value per cell: each sqlite3_column_* call takes the connection's mutex,
** sqlite3_value_* calls do not (the processor is used by one thread at a time anyway). */
static int store_value(sqlite3_stmt *stmt, int i, column *col, size_t r) {
  sqlite3_value *v = sqlite3_column_value(stmt, i);
  int t = sqlite3_value_type(v);
  col->types[r] = (uint8_t)t;
  switch (t) {
  case SQLITE_INTEGER:
    col->ints[r] = sqlite3_value_int64(v);
    return 0;
  case SQLITE_FLOAT:
    col->doubles[r] = sqlite3_value_double(v);
    return 0;
  case SQLITE_NULL:
    return 0;
  default: { /* TEXT or BLOB: the bytes as they are */
    const char *s = t == SQLITE_TEXT ? (const char *)sqlite3_value_text(v)
                                     : (const char *)sqlite3_value_blob(v);
    size_t len = (size_t)sqlite3_value_bytes(v);
    int64_t code = dict_intern(&col->d, s ? s : "", s ? len : 0);
    if (code < 0) return -1;
    col->codes[r] = (int32_t)code;
    return 0;
  }
  }
}

/* Settles the batch's rows of one column into a single type (see trak_column_batch) and fills
** `out`. Returns 0 or -1 (out of memory). */
static int finish_column(column *col, size_t rows, trak_column_batch *out) {
  unsigned seen = 0;
  for (size_t r = 0; r < rows; r++)
    seen |= 1u << col->types[r];
  int has_text = seen & (1u << SQLITE_TEXT | 1u << SQLITE_BLOB);
  int has_num = seen & (1u << SQLITE_INTEGER | 1u << SQLITE_FLOAT);
  for (size_t r = 0; r < rows; r++) {
    int t = col->types[r];
    col->nulls[r] = t == SQLITE_NULL;
    if (t == SQLITE_NULL) {
      col->ints[r] = 0;
      col->doubles[r] = NAN;
      col->codes[r] = -1;
    } else if (has_text && (t == SQLITE_INTEGER || t == SQLITE_FLOAT)) {
      char buf[64];
      if (t == SQLITE_INTEGER)
        sqlite3_snprintf(sizeof buf, buf, "%lld", (long long)col->ints[r]);
      else
        sqlite3_snprintf(sizeof buf, buf, "%!.15g", col->doubles[r]);
      int64_t code = dict_intern(&col->d, buf, strlen(buf));
      if (code < 0) return -1;
      col->codes[r] = (int32_t)code;
    } else if (t == SQLITE_INTEGER && (seen & 1u << SQLITE_FLOAT)) {
      col->doubles[r] = (double)col->ints[r];
    }
  }
  memset(out, 0, sizeof *out);
  out->nulls = col->nulls;
  if (has_text) {
    dict *d = &col->d;
    uint32_t n_new = d->n - d->batch_first;
    if (n_new + 1 > col->new_offsets_cap) {
      uint64_t *p = realloc(col->new_offsets, (n_new + 1) * sizeof *p);
      if (!p) return -1;
      col->new_offsets = p;
      col->new_offsets_cap = n_new + 1;
    }
    /* has_text: at least one string was interned, so offs and bytes exist */
    uint64_t base = d->offs[d->batch_first];
    for (uint32_t k = 0; k <= n_new; k++)
      col->new_offsets[k] = d->offs[d->batch_first + k] - base;
    out->type = TRAK_VALUE_STRING;
    out->codes = col->codes;
    out->new_strings = d->bytes + base;
    out->new_offsets = col->new_offsets;
    out->n_new_strings = n_new;
    out->new_strings_have_nul = d->batch_has_nul;
  } else if (seen & 1u << SQLITE_FLOAT) {
    out->type = TRAK_VALUE_DOUBLE;
    out->doubles = col->doubles;
  } else if (has_num) {
    out->type = TRAK_VALUE_INT;
    out->ints = col->ints;
  } else {
    out->type = TRAK_VALUE_NULL;
  }
  return 0;
}

int64_t trak__columns_fetch(sqlite3 *db, sqlite3_stmt *stmt, trak__columns **state, size_t max_rows,
                            trak_column_batch *out, trak_error *err) {
  trak__columns *c = *state;
  if (!c) {
    c = calloc(1, sizeof *c);
    if (!c) return trak_error_set(err, TRAK_ENOMEM, "out of memory");
    c->n_cols = sqlite3_column_count(stmt);
    c->cols = calloc(c->n_cols ? (size_t)c->n_cols : 1, sizeof *c->cols);
    if (!c->cols) {
      free(c);
      return trak_error_set(err, TRAK_ENOMEM, "out of memory");
    }
    *state = c;
  }
  if (!max_rows) max_rows = DEFAULT_BATCH;
  if (reserve_rows(c, max_rows)) return trak_error_set(err, TRAK_ENOMEM, "out of memory");
  for (int i = 0; i < c->n_cols; i++) {
    c->cols[i].d.batch_first = c->cols[i].d.n;
    c->cols[i].d.batch_has_nul = 0;
  }
  size_t rows = 0;
  while (rows < max_rows && !c->done) {
    int rc = sqlite3_step(stmt);
    if (rc != SQLITE_ROW) c->done = 1;
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_ROW) return trak_error_set(err, TRAK_EINVAL, "%s", sqlite3_errmsg(db));
    for (int i = 0; i < c->n_cols; i++)
      if (store_value(stmt, i, &c->cols[i], rows))
        return trak_error_set(err, TRAK_ENOMEM, "out of memory");
    rows++;
  }
  for (int i = 0; i < c->n_cols; i++)
    if (finish_column(&c->cols[i], rows, &out[i]))
      return trak_error_set(err, TRAK_ENOMEM, "out of memory");
  return (int64_t)rows;
}
