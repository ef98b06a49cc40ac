/*
** This file holds the decoding of TracePacket.interned_data: each InternedData table trak knows
** (event names and categories, debug annotation names, types and strings, source locations, log
** message bodies, correlation ids, histogram names, the callstack tables' strings, ftrace's kernel
** symbols, GPU compute arg names) adds its entries to the sequence's interned maps, which import/sequence.c owns and
** every later packet of the sequence looks up; mappings, frames and callstacks go to proto/callstacks.c.
*/
#include "processor/import/proto/proto.h"
#include "trak/protos.h"

/* Field numbers of one interned message kind: its iid and the string it interns. */
typedef struct intern_fields {
  uint32_t field; /* InternedData field */
  int kind;
  uint32_t iid, str; /* fields of the entry message */
} intern_fields;

static const intern_fields intern_table[] = {
    {TRAK_PB_InternedData_event_categories, TRAK_INTERN_CATEGORY, TRAK_PB_EventCategory_iid,
     TRAK_PB_EventCategory_name},
    {TRAK_PB_InternedData_event_names, TRAK_INTERN_NAME, TRAK_PB_EventName_iid,
     TRAK_PB_EventName_name},
    {TRAK_PB_InternedData_debug_annotation_names, TRAK_INTERN_DEBUG_NAME,
     TRAK_PB_DebugAnnotationName_iid, TRAK_PB_DebugAnnotationName_name},
    {TRAK_PB_InternedData_debug_annotation_value_type_names, TRAK_INTERN_DEBUG_TYPE_NAME,
     TRAK_PB_DebugAnnotationValueTypeName_iid, TRAK_PB_DebugAnnotationValueTypeName_name},
    {TRAK_PB_InternedData_debug_annotation_string_values, TRAK_INTERN_DEBUG_STRING,
     TRAK_PB_InternedString_iid, TRAK_PB_InternedString_str},
    {TRAK_PB_InternedData_source_locations, TRAK_INTERN_SOURCE_LOCATION, TRAK_PB_SourceLocation_iid,
     TRAK_PB_SourceLocation_function_name},
    {TRAK_PB_InternedData_log_message_body, TRAK_INTERN_LOG_BODY, TRAK_PB_LogMessageBody_iid,
     TRAK_PB_LogMessageBody_body},
    {TRAK_PB_InternedData_correlation_id_str, TRAK_INTERN_CORRELATION, TRAK_PB_InternedString_iid,
     TRAK_PB_InternedString_str},
    {TRAK_PB_InternedData_histogram_names, TRAK_INTERN_HISTOGRAM, TRAK_PB_HistogramName_iid,
     TRAK_PB_HistogramName_name},
    {TRAK_PB_InternedData_build_ids, TRAK_INTERN_BUILD_ID, TRAK_PB_InternedString_iid,
     TRAK_PB_InternedString_str},
    {TRAK_PB_InternedData_mapping_paths, TRAK_INTERN_MAPPING_PATH, TRAK_PB_InternedString_iid,
     TRAK_PB_InternedString_str},
    {TRAK_PB_InternedData_function_names, TRAK_INTERN_FUNCTION_NAME, TRAK_PB_InternedString_iid,
     TRAK_PB_InternedString_str},
    {TRAK_PB_InternedData_source_paths, TRAK_INTERN_SOURCE_PATH, TRAK_PB_InternedString_iid,
     TRAK_PB_InternedString_str},
    {TRAK_PB_InternedData_kernel_symbols, TRAK_INTERN_KERNEL_SYMBOL, TRAK_PB_InternedString_iid,
     TRAK_PB_InternedString_str},
    {TRAK_PB_GpuInternedData_compute_arg_names, TRAK_INTERN_COMPUTE_ARG_NAME,
     TRAK_PB_InternedComputeArgName_iid, TRAK_PB_InternedComputeArgName_name},
};

/* Adds one entry (an EventName, an InternedString, ...) to the sequence's map. A
** SourceLocation keeps its three fields: the map holds its index in imp->source_locs. */
static void intern_entry(trak_importer *imp, trak_sequence *seq, const intern_fields *f,
                         const uint8_t *data, size_t len) {
  uint64_t iid = 0;
  uint32_t value = 0;
  int rc, has_iid = 0;
  if (f->kind == TRAK_INTERN_SOURCE_LOCATION) {
    trak_source_loc loc;
    rc = trak__source_loc_decode(imp, data, len, &loc, &iid);
    if (!imp->source_locs.n) trak_vec_push(imp->source_locs, loc); /* index 0: unused */
    value = (uint32_t)imp->source_locs.n;
    has_iid = iid != 0;
    if (rc >= 0 && iid) trak_vec_push(imp->source_locs, loc);
  } else {
    trak_pb_decoder dec;
    trak_pb_field fld;
    trak__dec_init(imp, &dec, data, len);
    const uint8_t *s = (const uint8_t *)"";
    size_t slen = 0;
    while ((rc = trak_pb_decoder_next(&dec, &fld)) > 0) {
      if (fld.number == f->iid && fld.wire_type == TRAK_PB_WIRE_VARINT)
        iid = fld.value, has_iid = 1;
      else if (fld.number == f->str && fld.wire_type == TRAK_PB_WIRE_LEN)
        s = fld.data, slen = fld.len;
    }
    if (rc >= 0 && has_iid) /* a build id is binary: kept as is, shown in hex */
      value = (f->kind == TRAK_INTERN_BUILD_ID ? trak__strpool_intern_bytes : trak__strpool_intern)(
          &imp->tables->strings, (const char *)s, slen);
  }
  /* an entry without an iid is an error; one that says iid 0 is kept, as Perfetto keeps it
  ** (traced_perf interns the empty build id, path and name under 0) */
  if (rc < 0 || !has_iid) {
    trak__report(imp, TRAK_STAT_INTERNED_ERRORS, "%s entry %s", trak__intern_kind_names[f->kind],
                 rc < 0 ? "is malformed" : "has no iid");
    return;
  }
  int added;
  uint32_t *slot = trak__map_put(&seq->interned[f->kind], iid, 0, &added);
  if (!added && *slot != value) seq->intern_epoch++; /* what the iid meant before is gone */
  *slot = value;
}

void trak__interned_data_add(trak_importer *imp, trak_sequence *seq, const uint8_t *data,
                             size_t len) {
  trak_pb_decoder dec;
  trak_pb_field fld;
  trak__dec_init(imp, &dec, data, len);
  int rc;
  while ((rc = trak_pb_decoder_next(&dec, &fld)) > 0) {
    if (fld.wire_type != TRAK_PB_WIRE_LEN) continue;
    size_t i = 0, n = sizeof intern_table / sizeof *intern_table;
    while (i < n && intern_table[i].field != fld.number)
      i++;
    if (i < n)
      intern_entry(imp, seq, &intern_table[i], fld.data, fld.len);
    else if (fld.number == TRAK_PB_InternedData_mappings ||
             fld.number == TRAK_PB_InternedData_frames ||
             fld.number == TRAK_PB_InternedData_callstacks)
      trak__callstack_interned(imp, seq, fld.number, fld.data, fld.len);
    else if (fld.number == TRAK_PB_InternedData_gpu_counter_descriptors)
      trak__gpu_interned_descriptor(imp, seq, fld.data, fld.len);
    else if (fld.number == TRAK_PB_InternedData_graphics_contexts ||
             fld.number == TRAK_PB_InternedData_gpu_specifications)
      trak__gpu_stages_interned(imp, seq, fld.number, fld.data, fld.len);
    else if (fld.number == TRAK_PB_GpuInternedData_compute_kernels)
      trak__gpu_kernel_interned(imp, seq, fld.data, fld.len);
  }
  if (rc < 0) trak__report(imp, TRAK_STAT_PACKET_MALFORMED, "interned_data is malformed");
}
