/*
** This file holds the flattening of debug annotations into the args table with Perfetto's key
** naming: an annotation `name` becomes key "debug.name" ('.', '[' and ']' in the name become
** '_'); a dict entry appends ".entry"; an array element appends "[i]" to the key and nothing to
** the flat_key. Legacy NestedValue annotations and legacy_json_value text (read with the JSON
** trace tokenizer) flatten the same way. One event's annotations form one arg set (contiguous
** rows). Also Perfetto's reflection of a message's fields into args (typed TrackEvent fields,
** proto_value annotations, generic ftrace events). Sharing and merging sets is
** import/arg_sets.c's.
*/
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb/schema.h"
#include "processor/import/json/json_args.h"
#include "processor/import/proto/proto.h"
#include "processor/tables/arg_value.h"
#include "util/limits.h"

#define KEY_MAX TRAK_LIMIT_KEY_BYTES
#define MAX_DEPTH TRAK_LIMIT_ANNOTATION_DEPTH

typedef struct args_ctx {
  trak_importer *imp;
  trak_sequence *seq;
  uint32_t set; /* arg_set_id: the first row of the set */
  trak_arg_key kb;
  uint32_t top_key;  /* string id of the annotation's own key "debug.<name>" */
  size_t top_len;    /* its length: a longer key is a nested entry */
  int count_unknown; /* a TrackEvent's reflection: fields the schema lacks count (see reflect) */
  int nested;        /* a value other than a scalar was met (such sets are not memoized) */
} args_ctx;

/* Adds a row for the current key, or returns TRAK_NULL_U32 (reported) if the key was cut. */
static uint32_t add_row(args_ctx *c, trak_arg_type type) {
  trak_tables *t = c->imp->tables;
  if (TRAK_UNLIKELY(c->kb.cut)) {
    trak__arg_key_too_long(c->imp, &c->kb, "debug annotation");
    return TRAK_NULL_U32;
  }
  if (c->kb.key_len == c->top_len) return trak__arg_add(t, c->set, c->top_key, c->top_key, type);
  uint32_t key = trak__strpool_intern(&t->strings, c->kb.key, c->kb.key_len);
  uint32_t flat = c->kb.flat_len == c->kb.key_len
                      ? key
                      : trak__strpool_intern(&t->strings, c->kb.flat, c->kb.flat_len);
  return trak__arg_add(t, c->set, flat, key, type);
}

static void add_int(args_ctx *c, trak_arg_type type, int64_t v) {
  uint32_t row = add_row(c, type); /* before reading the column: add_row may move it */
  if (row != TRAK_NULL_U32) trak__arg_set_int(c->imp->tables, row, v);
}
static void add_real(args_ctx *c, double v) {
  uint32_t row = add_row(c, TRAK_ARG_REAL);
  if (row != TRAK_NULL_U32) trak__arg_set_real(c->imp->tables, row, v);
}
static void add_string(args_ctx *c, trak_arg_type type, uint32_t str) {
  uint32_t row = add_row(c, type);
  if (row != TRAK_NULL_U32) trak__arg_set_str(c->imp->tables, row, str);
}
static uint32_t intern_span(args_ctx *c, const trak_pb_field *f) {
  return trak__strpool_intern(&c->imp->tables->strings, (const char *)f->data, f->len);
}

static void nested_value(args_ctx *c, const uint8_t *data, size_t len, int depth);
static void reflect(args_ctx *c, const trak_pb_message_desc *m, const uint8_t *data, size_t len,
                    int depth);
static void proto_value(args_ctx *c, const uint8_t *data, size_t len, const trak_pb_field *value,
                        int depth);

/* Legacy NestedValue: a dict (parallel dict_keys / dict_values), an array, or a scalar. */
static void nested_dict_or_array(args_ctx *c, const uint8_t *data, size_t len, uint64_t type,
                                 int depth) {
  trak_pb_decoder dec, keys;
  trak_pb_field f, k;
  trak_arg_key_mark mark = trak__arg_key_save(&c->kb);
  trak__dec_init(c->imp, &keys, data, len);
  trak__dec_init(c->imp, &dec, data, len);
  uint32_t index = 0;
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.wire_type != TRAK_PB_WIRE_LEN) continue;
    if (type == TRAK_PB_DebugAnnotation_NestedValue_DICT &&
        f.number == TRAK_PB_DebugAnnotation_NestedValue_dict_values) {
      /* Find the matching (next) key. */
      int found = 0;
      while (!found && trak_pb_decoder_next(&keys, &k) > 0)
        found = k.number == TRAK_PB_DebugAnnotation_NestedValue_dict_keys &&
                k.wire_type == TRAK_PB_WIRE_LEN;
      if (!found) break;
      trak__arg_key_push(&c->kb, ".", 1, 1);
      trak__arg_key_push(&c->kb, (const char *)k.data, k.len, 1);
    } else if (type == TRAK_PB_DebugAnnotation_NestedValue_ARRAY &&
               f.number == TRAK_PB_DebugAnnotation_NestedValue_array_values) {
      char idx[24];
      int n = snprintf(idx, sizeof idx, "[%u]", index++);
      trak__arg_key_push(&c->kb, idx, (size_t)n, 0);
    } else {
      continue;
    }
    nested_value(c, f.data, f.len, depth + 1);
    trak__arg_key_restore(&c->kb, mark);
  }
}

/* A value nested past the depth limit: dropped, and counted. */
__attribute__((cold, noinline)) static void too_deep(args_ctx *c) {
  trak__report(c->imp, TRAK_STAT_ANNOTATION_TOO_DEEP,
               "debug annotation '%.*s' nests deeper than %d levels; the deeper values were "
               "dropped",
               (int)(c->kb.key_len < 60 ? c->kb.key_len : 60), c->kb.key, MAX_DEPTH);
}

/* Opens a decoder on the `len` bytes at `data`, a value `depth` levels down. Returns 0 (the
** value dropped and counted) past the depth limit, 1 otherwise. */
static int nested_open(args_ctx *c, trak_pb_decoder *dec, const uint8_t *data, size_t len,
                       int depth) {
  if (depth > MAX_DEPTH) {
    too_deep(c);
    return 0;
  }
  trak__dec_init(c->imp, dec, data, len);
  return 1;
}

static void nested_value(args_ctx *c, const uint8_t *data, size_t len, int depth) {
  trak_pb_decoder dec;
  trak_pb_field f;
  if (!nested_open(c, &dec, data, len, depth)) return;
  uint64_t type = 0;
  while (trak_pb_decoder_next(&dec, &f) > 0)
    if (f.number == TRAK_PB_DebugAnnotation_NestedValue_nested_type) type = f.value;
  if (type == TRAK_PB_DebugAnnotation_NestedValue_DICT ||
      type == TRAK_PB_DebugAnnotation_NestedValue_ARRAY) {
    nested_dict_or_array(c, data, len, type, depth);
    return;
  }
  trak__dec_init(c->imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    switch (f.number) {
    case TRAK_PB_DebugAnnotation_NestedValue_int_value:
      add_int(c, TRAK_ARG_INT, trak_pb_as_int64(&f));
      return;
    case TRAK_PB_DebugAnnotation_NestedValue_double_value:
      add_real(c, trak_pb_as_double(&f));
      return;
    case TRAK_PB_DebugAnnotation_NestedValue_bool_value:
      add_int(c, TRAK_ARG_BOOL, f.value != 0);
      return;
    case TRAK_PB_DebugAnnotation_NestedValue_string_value:
      if (f.wire_type == TRAK_PB_WIRE_LEN) add_string(c, TRAK_ARG_STRING, intern_span(c, &f));
      return;
    default:
      break;
    }
  }
}

/* The string id of an annotation's name (name, or name_iid interned), 0 if it has none. */
static uint32_t annotation_name(trak_importer *imp, trak_sequence *seq, const uint8_t *data,
                                size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init(imp, &dec, data, len);
  uint32_t name = 0;
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number == TRAK_PB_DebugAnnotation_name && f.wire_type == TRAK_PB_WIRE_LEN)
      name = trak__strpool_intern(&imp->tables->strings, (const char *)f.data, f.len);
    else if (f.number == TRAK_PB_DebugAnnotation_name_iid)
      name = trak__interned_get(imp, seq, TRAK_INTERN_DEBUG_NAME, f.value);
  }
  return name;
}

/* Appends an annotation's name to the key: '.', '[' and ']' in it would read as nesting, so
** Perfetto makes them '_' (in top-level names, dict entries and annotations inside protos). */
static void name_push(trak_arg_key *kb, const trak_strpool *sp, uint32_t name) {
  size_t at = kb->key_len;
  if (name) trak__arg_key_push(kb, sp->str.v[name], sp->len.v[name], 1);
  for (size_t k = at; k < kb->key_len; k++)
    if (kb->key[k] == '.' || kb->key[k] == '[' || kb->key[k] == ']')
      kb->key[k] = kb->flat[k + kb->flat_len - kb->key_len] = '_';
}

static void annotation_value(args_ctx *c, const uint8_t *data, size_t len, int depth);

/* A named annotation nested in another value: a dict entry, or a DebugAnnotation field of a
** reflected message (Perfetto drops that field's own name). */
static void entry(args_ctx *c, const uint8_t *data, size_t len, int depth) {
  trak_arg_key_mark mark = trak__arg_key_save(&c->kb);
  trak__arg_key_push(&c->kb, ".", 1, 1);
  name_push(&c->kb, &c->imp->tables->strings, annotation_name(c->imp, c->seq, data, len));
  annotation_value(c, data, len, depth);
  trak__arg_key_restore(&c->kb, mark);
}

/* A legacy_json_value becomes nested args, as Perfetto parses it: an object or array flattens
** under the annotation's key, a string is a string; a number, bool or null on its own adds
** nothing, as in Perfetto. Text that is not JSON stays one json arg, so nothing is lost. */
static void legacy_json(args_ctx *c, const trak_pb_field *f) {
  trak_json_cur cur = {(const char *)f->data, (const char *)f->data + f->len, 1, NULL, NULL};
  trak_json_value v;
  if (trak__json_value(&cur, &v) != TRAK_JSON_OK || trak__json_peek(&cur) >= 0) {
    add_string(c, TRAK_ARG_JSON, intern_span(c, f));
    return;
  }
  if (v.kind != TRAK_JSON_OBJECT && v.kind != TRAK_JSON_ARRAY && v.kind != TRAK_JSON_STRING) return;
  trak_json_cur value = {v.s, v.s + v.len, 1, NULL, NULL};
  if (v.kind == TRAK_JSON_STRING) value.p--, value.end++; /* the quotes are the value's */
  trak__json_args_flatten(&(trak_json_args){c->imp, NULL, c->set, &c->kb, NULL}, &value, 0);
}

/* One DebugAnnotation whose name (if any) is already on the key. */
static void annotation_value(args_ctx *c, const uint8_t *data, size_t len, int depth) {
  trak_pb_decoder dec;
  trak_pb_field f;
  if (!nested_open(c, &dec, data, len, depth)) return;
  trak_arg_key_mark mark = trak__arg_key_save(&c->kb);
  uint32_t index = 0;
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    switch (f.number) {
    case TRAK_PB_DebugAnnotation_bool_value:
      add_int(c, TRAK_ARG_BOOL, f.value != 0);
      break;
    case TRAK_PB_DebugAnnotation_uint_value:
      add_int(c, TRAK_ARG_UINT, (int64_t)f.value);
      break;
    case TRAK_PB_DebugAnnotation_int_value:
      add_int(c, TRAK_ARG_INT, trak_pb_as_int64(&f));
      break;
    case TRAK_PB_DebugAnnotation_pointer_value:
      add_int(c, TRAK_ARG_POINTER, (int64_t)f.value);
      break;
    case TRAK_PB_DebugAnnotation_double_value:
      add_real(c, trak_pb_as_double(&f));
      break;
    case TRAK_PB_DebugAnnotation_string_value:
      if (f.wire_type == TRAK_PB_WIRE_LEN) add_string(c, TRAK_ARG_STRING, intern_span(c, &f));
      break;
    case TRAK_PB_DebugAnnotation_string_value_iid:
      add_string(c, TRAK_ARG_STRING,
                 trak__interned_get(c->imp, c->seq, TRAK_INTERN_DEBUG_STRING, f.value));
      break;
    case TRAK_PB_DebugAnnotation_legacy_json_value:
      c->nested = 1;
      if (f.wire_type == TRAK_PB_WIRE_LEN) legacy_json(c, &f);
      break;
    case TRAK_PB_DebugAnnotation_nested_value:
      c->nested = 1;
      if (f.wire_type == TRAK_PB_WIRE_LEN) nested_value(c, f.data, f.len, depth + 1);
      break;
    case TRAK_PB_DebugAnnotation_proto_value:
      c->nested = 1;
      if (f.wire_type == TRAK_PB_WIRE_LEN) proto_value(c, data, len, &f, depth + 1);
      break;
    case TRAK_PB_DebugAnnotation_dict_entries:
    case TRAK_PB_DebugAnnotation_array_values: {
      c->nested = 1;
      if (f.wire_type != TRAK_PB_WIRE_LEN) break;
      if (f.number == TRAK_PB_DebugAnnotation_array_values) {
        char idx[24];
        int n = snprintf(idx, sizeof idx, "[%u]", index++);
        trak__arg_key_push(&c->kb, idx, (size_t)n, 0);
        annotation_value(c, f.data, f.len, depth + 1);
      } else {
        entry(c, f.data, f.len, depth + 1); /* a dict entry carries its own name */
      }
      trak__arg_key_restore(&c->kb, mark);
      break;
    }
    default:
      break;
    }
  }
}

/* ---- Perfetto's reflection of a proto message into args ----
** A field `name` appends ".name" to the key (nothing before the first); a repeated field's n-th
** value appends "name[n]" to the key and "name" to the flat key, counting per field at each
** level (packed values one by one); a message with no field at all becomes a null row; an enum
** becomes its value's name (its number as a string if the schema lacks it); a few
** `*source_location_iid` fields become the interned location's file_name, function_name and
** line_number, as Perfetto's overrides make them. */

/* The repeated fields met so far in one message, and how many values each had. */
typedef struct rep_counts {
  uint32_t number[32], count[32], n;
} rep_counts;

static uint32_t rep_next(rep_counts *r, uint32_t number) {
  for (uint32_t i = 0; i < r->n; i++)
    if (r->number[i] == number) return r->count[i]++;
  if (r->n < 32) r->number[r->n] = number, r->count[r->n++] = 1;
  return 0;
}

/* Fields whose interned SourceLocation Perfetto writes in place of the iid, and the key the
** location's fields go under. */
static const char *const location_overrides[][2] = {
    {"begin_impl_frame_args.current_args.source_location_iid",
     "begin_impl_frame_args.current_args"},
    {"begin_impl_frame_args.last_args.source_location_iid", "begin_impl_frame_args.last_args"},
    {"begin_frame_observer_state.last_begin_frame_args.source_location_iid",
     "begin_frame_observer_state.last_begin_frame_args"},
    {"chrome_memory_pressure_notification.creation_location_iid",
     "chrome_memory_pressure_notification"},
};

static void add_keyed(args_ctx *c, const char *prefix, const char *leaf, trak_arg_type type,
                      int64_t v, uint32_t str) {
  char buf[KEY_MAX];
  int n = snprintf(buf, sizeof buf, "%s.%s", prefix, leaf);
  trak_tables *t = c->imp->tables;
  uint32_t key = trak__strpool_intern(&t->strings, buf, (size_t)n);
  uint32_t row = trak__arg_add(t, c->set, key, key, type);
  t->args.value[row] = trak__arg_word(type, v, 0, str);
}

/* Returns 1 when the field at the current key is a location override that resolved. */
static int location_override(args_ctx *c, uint64_t iid) {
  for (size_t i = 0; i < sizeof location_overrides / sizeof *location_overrides; i++) {
    const char *k = location_overrides[i][0];
    if (strlen(k) != c->kb.flat_len || memcmp(k, c->kb.flat, c->kb.flat_len)) continue;
    const trak_source_loc *loc = trak__source_loc_get(c->imp, c->seq, iid);
    if (!loc) return 0;
    trak_source_loc l = *loc;
    trak_strpool *sp = &c->imp->tables->strings;
    const char *prefix = location_overrides[i][1];
    add_keyed(c, prefix, "file_name", TRAK_ARG_STRING, 0, trak__source_path(c->imp, l.file));
    add_keyed(c, prefix, "function_name", TRAK_ARG_STRING, 0,
              l.function ? l.function : trak__strpool_intern(sp, "", 0));
    if (l.has_line) add_keyed(c, prefix, "line_number", TRAK_ARG_INT, l.line, 0);
    return 1;
  }
  return 0;
}

/* One scalar value of field `fd` at the current key. */
static void reflect_scalar(args_ctx *c, const trak_pb_field_desc *fd, uint64_t v,
                           const trak_pb_field *f) {
  switch (fd->type) {
  case TRAK_PB_TYPE_INT32:
  case TRAK_PB_TYPE_SFIXED32:
    add_int(c, TRAK_ARG_INT, (int32_t)v);
    break;
  case TRAK_PB_TYPE_INT64:
  case TRAK_PB_TYPE_SFIXED64:
    add_int(c, TRAK_ARG_INT, (int64_t)v);
    break;
  case TRAK_PB_TYPE_SINT32:
  case TRAK_PB_TYPE_SINT64:
    add_int(c, TRAK_ARG_INT, (int64_t)(v >> 1) ^ -(int64_t)(v & 1));
    break;
  case TRAK_PB_TYPE_UINT32:
  case TRAK_PB_TYPE_FIXED32:
    add_int(c, TRAK_ARG_UINT, (uint32_t)v);
    break;
  case TRAK_PB_TYPE_UINT64:
  case TRAK_PB_TYPE_FIXED64:
    if (c->kb.flat_len > 4 && !memcmp(c->kb.flat + c->kb.flat_len - 4, "_iid", 4) &&
        location_override(c, v))
      break;
    add_int(c, TRAK_ARG_UINT, (int64_t)v);
    break;
  case TRAK_PB_TYPE_BOOL:
    add_int(c, TRAK_ARG_BOOL, v != 0);
    break;
  case TRAK_PB_TYPE_DOUBLE: {
    double d;
    memcpy(&d, &v, 8);
    add_real(c, d);
    break;
  }
  case TRAK_PB_TYPE_FLOAT: {
    float x;
    uint32_t u = (uint32_t)v;
    memcpy(&x, &u, 4);
    add_real(c, x);
    break;
  }
  case TRAK_PB_TYPE_STRING:
    if (f) add_string(c, TRAK_ARG_STRING, intern_span(c, f));
    break;
  case TRAK_PB_TYPE_ENUM: {
    const trak_pb_enum_desc *e = trak__schema_field_enum(fd);
    const char *name = e ? trak__schema_enum_name(e, (int32_t)v) : NULL;
    char num[16];
    if (!name) snprintf(num, sizeof num, "%d", (int32_t)v), name = num;
    add_string(c, TRAK_ARG_STRING,
               trak__strpool_intern(&c->imp->tables->strings, name, strlen(name)));
    break;
  }
  default: /* bytes: Perfetto's args have no bytes type either */
    break;
  }
}

/* One field of a message being reflected, its key parts pushed by the caller. */
static void reflect_value(args_ctx *c, const trak_pb_field_desc *fd, const trak_pb_field *f,
                          int depth) {
  if (fd->type == TRAK_PB_TYPE_MESSAGE) {
    const trak_pb_message_desc *sub = trak__schema_field_message(fd);
    if (f->wire_type == TRAK_PB_WIRE_LEN && sub) reflect(c, sub, f->data, f->len, depth + 1);
    return;
  }
  int is_len = f->wire_type == TRAK_PB_WIRE_LEN;
  if (is_len != (fd->type == TRAK_PB_TYPE_STRING || fd->type == TRAK_PB_TYPE_BYTES)) return;
  reflect_scalar(c, fd, f->value, is_len ? f : NULL);
}

/* Pushes ".name" (or "name" first) and, for a repeated field, "[i]" on the key only. */
static void push_field_key(trak_arg_key *kb, const trak_pb_field_desc *fd, int repeated_index) {
  if (kb->key_len) trak__arg_key_push(kb, ".", 1, 1);
  trak__arg_key_push(kb, fd->name, strlen(fd->name), 1);
  if (repeated_index >= 0) {
    char idx[24];
    int n = snprintf(idx, sizeof idx, "[%d]", repeated_index);
    trak__arg_key_push(kb, idx, (size_t)n, 0);
  }
}

static void reflect_field(args_ctx *c, const trak_pb_field_desc *fd, const trak_pb_field *f,
                          rep_counts *reps, int depth) {
  trak_arg_key_mark mark = trak__arg_key_save(&c->kb);
  int packed = fd->repeated && f->wire_type == TRAK_PB_WIRE_LEN &&
               fd->type != TRAK_PB_TYPE_MESSAGE && fd->type != TRAK_PB_TYPE_STRING &&
               fd->type != TRAK_PB_TYPE_BYTES;
  if (fd->type == TRAK_PB_TYPE_MESSAGE && f->wire_type == TRAK_PB_WIRE_LEN &&
      trak__schema_field_message(fd) == c->imp->da_schema) {
    entry(c, f->data, f->len, depth + 1); /* named by itself, not by the field */
    return;
  }
  if (!packed) {
    push_field_key(&c->kb, fd, fd->repeated ? (int)rep_next(reps, fd->number) : -1);
    reflect_value(c, fd, f, depth);
    trak__arg_key_restore(&c->kb, mark);
    return;
  }
  trak_pb_packed it;
  uint64_t v;
  int rc;
  trak_pb_packed_init(&it, f, trak__schema_wire_type(fd->type));
  while ((rc = trak_pb_packed_next(&it, &v)) > 0) {
    push_field_key(&c->kb, fd, (int)rep_next(reps, fd->number));
    reflect_scalar(c, fd, v, NULL);
    trak__arg_key_restore(&c->kb, mark);
  }
  if (rc < 0)
    trak__report(c->imp, TRAK_STAT_PACKET_MALFORMED,
                 "packed repeated field %s of an annotation does not decode; the values before the "
                 "bad one were kept",
                 fd->name);
}

static void reflect(args_ctx *c, const trak_pb_message_desc *m, const uint8_t *data, size_t len,
                    int depth) {
  trak_pb_decoder dec;
  trak_pb_field f;
  if (!nested_open(c, &dec, data, len, depth)) return;
  rep_counts reps;
  reps.n = 0;
  int empty = 1;
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    empty = 0;
    const trak_pb_field_desc *fd = trak__schema_field_by_number(m, f.number);
    if (fd)
      reflect_field(c, fd, &f, &reps, depth);
    else if (c->count_unknown) /* as Perfetto's reflection of a TrackEvent counts them */
      c->imp->stats[TRAK_STAT_UNKNOWN_EXTENSION_FIELDS]++;
  }
  if (empty) add_row(c, TRAK_ARG_NULL);
}

/* A DebugAnnotation's proto_value, reflected with the message its proto_type_name names. */
static void proto_value(args_ctx *c, const uint8_t *data, size_t len, const trak_pb_field *value,
                        int depth) {
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init(c->imp, &dec, data, len);
  const char *name = NULL;
  size_t name_len = 0;
  const trak_strpool *sp = &c->imp->tables->strings;
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number == TRAK_PB_DebugAnnotation_proto_type_name && f.wire_type == TRAK_PB_WIRE_LEN) {
      name = (const char *)f.data, name_len = f.len;
    } else if (f.number == TRAK_PB_DebugAnnotation_proto_type_name_iid) {
      uint32_t s = trak__interned_get(c->imp, c->seq, TRAK_INTERN_DEBUG_TYPE_NAME, f.value);
      if (s) name = sp->str.v[s], name_len = sp->len.v[s];
    }
  }
  trak__schemas_init(c->imp);
  char buf[256];
  if (name && name_len && name[0] == '.') name++, name_len--;
  const trak_pb_message_desc *m = NULL;
  if (name && name_len < sizeof buf) {
    memcpy(buf, name, name_len);
    buf[name_len] = 0;
    m = trak__schema_message(buf);
  }
  if (!m) {
    trak__report(c->imp, TRAK_STAT_BAD_TYPE,
                 "debug annotation proto_value of type '%.*s', which trak's schema lacks; left "
                 "out of the args",
                 (int)(name_len < 80 ? name_len : 80), name ? name : "");
    return;
  }
  reflect(c, m, value->data, value->len, depth);
}

void trak__schemas_init(trak_importer *imp) {
  if (imp->te_schema) return;
  imp->te_schema = trak__schema_message("TrackEvent");
  imp->chrome_te_schema = trak__schema_message("ChromeTrackEvent");
  imp->da_schema = trak__schema_message("DebugAnnotation");
}

void trak__reflect_field_args(trak_importer *imp, trak_sequence *seq, uint32_t set,
                              const trak_pb_field_desc *fd, const trak_pb_field *f) {
  args_ctx c;
  c.imp = imp;
  c.seq = seq;
  c.set = set;
  c.kb.key_len = c.kb.flat_len = c.kb.cut = 0;
  c.top_len = (size_t)-1; /* every key is interned */
  c.top_key = 0;
  c.count_unknown = 1;
  rep_counts reps;
  reps.n = 0;
  reflect_field(&c, fd, f, &reps, 0);
}

/* The body of trak__debug_args_append, inlined into trak__debug_args_add too: most arg sets
** are debug annotations only, and a call per set is measurable on the import's hot path.
** Returns whether every annotation was a scalar (no nested value, dict, array or proto). */
static inline __attribute__((always_inline)) int
append(trak_importer *imp, trak_sequence *seq, uint32_t set, const trak_span *annos, size_t n) {
  args_ctx c;
  c.count_unknown = 0;
  c.nested = 0;
  c.imp = imp;
  c.seq = seq;
  c.set = set;
  const trak_strpool *sp = &imp->tables->strings;
  for (size_t i = 0; i < n; i++) {
    uint32_t name = annotation_name(imp, seq, annos[i].data, annos[i].len);
    c.kb.key_len = c.kb.flat_len = c.kb.cut = 0;
    /* The key of a top-level value is built and interned once per name, not once per event;
    ** later events copy it back (a cut key, never interned, is built each time). */
    int added;
    uint32_t *key = trak__map_put(&imp->args.debug_keys, name, 0, &added);
    if (added || *key == TRAK_NULL_U32) {
      trak__arg_key_push(&c.kb, "debug.", 6, 1);
      name_push(&c.kb, sp, name);
      *key = c.kb.cut ? TRAK_NULL_U32
                      : trak__strpool_intern(&imp->tables->strings, c.kb.key, c.kb.key_len);
    } else {
      size_t key_len = sp->len.v[*key];
      memcpy(c.kb.key, sp->str.v[*key], key_len);
      memcpy(c.kb.flat, sp->str.v[*key], key_len);
      c.kb.key_len = c.kb.flat_len = key_len;
    }
    c.top_key = *key;
    c.top_len = c.kb.key_len;
    annotation_value(&c, annos[i].data, annos[i].len, 0);
  }
  return !c.nested;
}

void trak__debug_args_append(trak_importer *imp, trak_sequence *seq, uint32_t set,
                             const trak_span *annos, size_t n) {
  append(imp, seq, set, annos, n);
}

/* ---- the memo of annotations' arg sets (imp->args.memos) ----
** Events repeat their annotations (the same names and values) far more often than not, and
** building a set row by row only to find it shared costs about 800 instructions an annotation.
** A memo's key is the annotations' bytes, each after its length; the same key on the same
** sequence with its interned state unchanged makes the same rows, so the same shared set.
** Only sets of scalar annotations that reported no problem are kept (a problem is reported
** again each time), and none whose rows were kept beside a colliding set. */
#define MEMO_KEY_MAX 256 /* key bytes; longer annotations are not memoized */
#define MEMOS_MAX 16384  /* memos kept: all are forgotten when full (1 MiB, longer keys besides) */

/* The key of `n` annotations in `key` (MEMO_KEY_MAX bytes); returns its length, or 0 when it
** does not fit. */
static size_t memo_key(const trak_span *annos, size_t n, uint8_t *key) {
  size_t len = 0;
  for (size_t i = 0; i < n; i++) {
    if (annos[i].len > 255 || len + 1 + annos[i].len > MEMO_KEY_MAX) return 0;
    key[len++] = (uint8_t)annos[i].len;
    memcpy(key + len, annos[i].data, annos[i].len);
    len += annos[i].len;
  }
  return len;
}

static uint64_t memo_hash(const trak_sequence *seq, const uint8_t *key, size_t len) {
  uint64_t h = trak__mix((uint64_t)(uintptr_t)seq, seq->intern_epoch);
  size_t i = 0;
  for (; i + 8 <= len; i += 8) {
    uint64_t w;
    memcpy(&w, key + i, 8);
    h = trak__mix(h, w);
  }
  uint64_t tail = 0;
  memcpy(&tail, key + i, len - i);
  return trak__mix(h, tail ^ len << 56);
}

__attribute__((noinline)) static void memo_put(trak_args *a, const trak_sequence *seq, uint64_t h,
                                               const uint8_t *key, size_t len, uint32_t set) {
  if (a->memos.n == MEMOS_MAX) {
    trak__map_clear(&a->memo_by_hash);
    a->memos.n = a->memo_bytes.n = 0;
  }
  trak_arg_memo m = {seq, seq->intern_epoch, set, (uint32_t)a->memo_bytes.n, (uint32_t)len, {0}};
  if (len <= TRAK_ARG_MEMO_INLINE) {
    memcpy(m.key, key, len);
  } else {
    if (a->memo_bytes.n + len > a->memo_bytes.cap)
      trak__grow((void **)&a->memo_bytes.v, &a->memo_bytes.cap, a->memo_bytes.n + len, 1);
    memcpy(a->memo_bytes.v + a->memo_bytes.n, key, len);
    a->memo_bytes.n += len;
  }
  int added;
  *trak__map_put(&a->memo_by_hash, h, (uint32_t)a->memos.n, &added) = (uint32_t)a->memos.n;
  trak_vec_push(a->memos, m);
}

uint32_t trak__debug_args_add(trak_importer *imp, trak_sequence *seq, const trak_span *annos,
                              size_t n) {
  trak_args *a = &imp->args;
  uint8_t key[MEMO_KEY_MAX];
  size_t len = memo_key(annos, n, key);
  uint64_t h = 0;
  if (TRAK_LIKELY(len)) {
    h = memo_hash(seq, key, len);
    const uint32_t *i = trak__map_get(&a->memo_by_hash, h);
    if (i) {
      const trak_arg_memo *m = &a->memos.v[*i];
      /* a short key is in the memo's own line: no second miss in the memo's bytes */
      const uint8_t *kept = len <= TRAK_ARG_MEMO_INLINE ? m->key : a->memo_bytes.v + m->at;
      if (m->seq == seq && m->epoch == seq->intern_epoch && m->len == len &&
          !memcmp(kept, key, len))
        return m->set;
    }
  }
  uint32_t set = (uint32_t)imp->tables->args.n;
  uint64_t reports = imp->n_reports;
  int scalar = append(imp, seq, set, annos, n);
  int stable;
  uint32_t shared = trak__args_share_stable(imp, set, &stable);
  if (len && scalar && stable && reports == imp->n_reports) memo_put(a, seq, h, key, len, shared);
  return shared;
}
