/*
** This file holds typed event arguments: checking a trak_writer_arg tree before anything is
** written, and encoding it as TrackEvent.debug_annotations (top-level names interned, nested
** dict keys as plain names, arrays as array_values), the layout the processor flattens into args.
*/
#include "writer/writer_internal.h"

static int check_list(trak_writer *w, const char *call, const trak_writer_arg *args, size_t n,
                      int named, int depth) {
  if (n && !args) return trak__wr_fail(w, TRAK_EINVAL, "%s: argument list is NULL", call);
  for (size_t i = 0; i < n; i++) {
    const trak_writer_arg *a = &args[i];
    if (named && !a->name)
      return trak__wr_fail(w, TRAK_EINVAL, "%s: argument %zu has no name", call, i);
    const char *label = named ? a->name : "(array element)";
    switch (a->type) {
    case TRAK_WRITER_ARG_BOOL:
    case TRAK_WRITER_ARG_INT:
    case TRAK_WRITER_ARG_UINT:
    case TRAK_WRITER_ARG_DOUBLE:
    case TRAK_WRITER_ARG_POINTER:
      break;
    case TRAK_WRITER_ARG_STRING:
      if (!a->value.s)
        return trak__wr_fail(w, TRAK_EINVAL, "%s: argument '%s' has a NULL string", call, label);
      break;
    case TRAK_WRITER_ARG_DICT:
    case TRAK_WRITER_ARG_ARRAY:
      if (depth >= TRAK_WRITER_ARG_MAX_DEPTH)
        return trak__wr_fail(w, TRAK_EINVAL, "%s: argument '%s' nests deeper than %d", call, label,
                             TRAK_WRITER_ARG_MAX_DEPTH);
      int rc = check_list(w, call, a->value.nested.items, a->value.nested.count,
                          a->type == TRAK_WRITER_ARG_DICT, depth + 1);
      if (rc) return rc;
      break;
    default:
      return trak__wr_fail(w, TRAK_EINVAL, "%s: argument '%s' has unknown type %d", call, label,
                           (int)a->type);
    }
  }
  return 0;
}

int trak__wr_args_check(trak_writer *w, const char *call, const trak_writer_arg *args, size_t n) {
  return check_list(w, call, args, n, 1, 0);
}

/* Writes the value of `a` into the DebugAnnotation being built. */
static void encode_value(trak_pb_buf *b, const trak_writer_arg *a) {
  switch (a->type) {
  case TRAK_WRITER_ARG_BOOL:
    trak_pb_put_bool(b, TRAK_PB_DebugAnnotation_bool_value, a->value.b);
    break;
  case TRAK_WRITER_ARG_INT:
    trak_pb_put_int64(b, TRAK_PB_DebugAnnotation_int_value, a->value.i);
    break;
  case TRAK_WRITER_ARG_UINT:
    trak_pb_put_varint(b, TRAK_PB_DebugAnnotation_uint_value, a->value.u);
    break;
  case TRAK_WRITER_ARG_DOUBLE:
    trak_pb_put_double(b, TRAK_PB_DebugAnnotation_double_value, a->value.d);
    break;
  case TRAK_WRITER_ARG_STRING:
    trak_pb_put_string(b, TRAK_PB_DebugAnnotation_string_value, a->value.s);
    break;
  case TRAK_WRITER_ARG_POINTER:
    trak_pb_put_varint(b, TRAK_PB_DebugAnnotation_pointer_value, a->value.pointer);
    break;
  case TRAK_WRITER_ARG_DICT:
  case TRAK_WRITER_ARG_ARRAY: {
    int dict = a->type == TRAK_WRITER_ARG_DICT;
    for (size_t i = 0; i < a->value.nested.count; i++) {
      const trak_writer_arg *item = &a->value.nested.items[i];
      trak_pb_nested e = trak_pb_begin_nested(b, dict ? TRAK_PB_DebugAnnotation_dict_entries
                                                      : TRAK_PB_DebugAnnotation_array_values);
      if (dict) trak_pb_put_string(b, TRAK_PB_DebugAnnotation_name, item->name);
      encode_value(b, item);
      trak_pb_end_nested(b, e);
    }
    break;
  }
  }
}

void trak__wr_args_encode(trak_writer *w, const trak_writer_arg *args, size_t n) {
  trak_pb_buf *b = &w->out;
  for (size_t i = 0; i < n; i++) {
    trak_pb_nested d = trak_pb_begin_nested(b, TRAK_PB_TrackEvent_debug_annotations);
    uint64_t iid = trak__wr_intern(w, &w->arg_names, args[i].name);
    if (iid)
      trak_pb_put_varint(b, TRAK_PB_DebugAnnotation_name_iid, iid);
    else
      trak_pb_put_string(b, TRAK_PB_DebugAnnotation_name, args[i].name);
    encode_value(b, &args[i]);
    trak_pb_end_nested(b, d);
  }
}
