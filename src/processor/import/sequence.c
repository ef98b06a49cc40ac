/*
** This file holds packet sequences: their incremental state (interned strings per kind,
** TracePacketDefaults) and the block lists that collect their event records in file order.
*/
#include <string.h>
#include <sys/mman.h>

#include "processor/import/import.h"
#include "trak/protos.h"

void trak__block_free(trak_ev_block *b) {
  munmap(b, sizeof *b);
}

trak_sequence *trak__sequence_get(trak_importer *imp, uint32_t id) {
  if (TRAK_LIKELY(imp->last_seq && imp->last_seq->id == id)) return imp->last_seq;
  int added;
  uint32_t *slot = trak__map_put(&imp->seq_index, id, (uint32_t)imp->seqs.n, &added);
  if (!added) return imp->last_seq = imp->seqs.v[*slot];
  trak_sequence *seq = calloc(1, sizeof *seq);
  if (!seq) abort();
  seq->id = id;
  seq->thread_track = TRAK_NULL_U32;
  seq->last_ts = INT64_MIN;
  seq->last_track = TRAK_NULL_U32;
  trak_vec_push(imp->seqs, seq);
  return imp->last_seq = seq;
}

void trak__sequence_clear(trak_sequence *seq) {
  for (int k = 0; k < TRAK_INTERN_KINDS; k++)
    trak__map_clear(&seq->interned[k]);
  seq->default_clock = 0;
  seq->has_default_track = 0;
  seq->default_extra_uuids.n = 0;
  seq->default_extra_double_uuids.n = 0;
  seq->state_valid = 1;
  seq->seen_clear = 1;
}

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
};

static const char *const intern_kind_names[TRAK_INTERN_KINDS] = {
    "event category",          "event name",
    "debug annotation name",   "debug annotation type name",
    "debug annotation string", "source location",
    "log message body",        "correlation id"};

/* Adds one entry (an EventName, an InternedString, ...) to the sequence's map. A
** SourceLocation keeps its three fields: the map holds its index in imp->source_locs. */
static void intern_entry(trak_importer *imp, trak_sequence *seq, const intern_fields *f,
                         const uint8_t *data, size_t len) {
  uint64_t iid = 0;
  uint32_t value = 0;
  int rc;
  if (f->kind == TRAK_INTERN_SOURCE_LOCATION) {
    trak_source_loc loc;
    rc = trak__source_loc_decode(imp, data, len, &loc, &iid);
    if (!imp->source_locs.n) trak_vec_push(imp->source_locs, loc); /* index 0: unused */
    value = (uint32_t)imp->source_locs.n;
    if (rc >= 0 && iid) trak_vec_push(imp->source_locs, loc);
  } else {
    trak_pb_decoder dec;
    trak_pb_field fld;
    trak__dec_init(imp, &dec, data, len);
    const uint8_t *s = (const uint8_t *)"";
    size_t slen = 0;
    while ((rc = trak_pb_decoder_next(&dec, &fld)) > 0) {
      if (fld.number == f->iid && fld.wire_type == TRAK_PB_WIRE_VARINT)
        iid = fld.value;
      else if (fld.number == f->str && fld.wire_type == TRAK_PB_WIRE_LEN)
        s = fld.data, slen = fld.len;
    }
    if (rc >= 0 && iid) value = trak__strpool_intern(&imp->tables->strings, (const char *)s, slen);
  }
  if (rc < 0 || iid == 0) {
    trak__report(imp, TRAK_STAT_INTERNED_ERRORS, "%s entry %s", intern_kind_names[f->kind],
                 rc < 0 ? "is malformed" : "has iid 0 or no iid (iid 0 is never valid)");
    return;
  }
  int added;
  *trak__map_put(&seq->interned[f->kind], iid, 0, &added) = value;
}

void trak__interned_data_add(trak_importer *imp, trak_sequence *seq, const uint8_t *data,
                             size_t len) {
  trak_pb_decoder dec;
  trak_pb_field fld;
  trak__dec_init(imp, &dec, data, len);
  int rc;
  while ((rc = trak_pb_decoder_next(&dec, &fld)) > 0) {
    if (fld.wire_type != TRAK_PB_WIRE_LEN) continue;
    for (size_t i = 0; i < sizeof intern_table / sizeof *intern_table; i++)
      if (intern_table[i].field == fld.number)
        intern_entry(imp, seq, &intern_table[i], fld.data, fld.len);
  }
  if (rc < 0) trak__report(imp, TRAK_STAT_PACKET_MALFORMED, "interned_data is malformed");
}

uint32_t trak__interned_get(trak_importer *imp, trak_sequence *seq, int kind, uint64_t iid) {
  uint32_t *id = trak__map_get(&seq->interned[kind], iid);
  if (TRAK_LIKELY(id != NULL)) return *id;
  trak__report(imp, TRAK_STAT_INTERNED_MISSING, "%s iid %llu is not interned on sequence %u",
               intern_kind_names[kind], (unsigned long long)iid, seq->id);
  return 0;
}

__attribute__((noinline)) static trak_ev_block *new_block(trak_sequence *seq) {
  void *mem =
      mmap(NULL, sizeof(trak_ev_block), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) abort();
  madvise(mem, sizeof(trak_ev_block), MADV_HUGEPAGE); /* fewer page faults; a hint only */
  trak_ev_block *b = mem;
  b->next = NULL;
  b->n = 0;
  if (seq->tail)
    seq->tail->next = b;
  else
    seq->head = b;
  seq->tail = b;
  return b;
}

void trak__sequence_push(trak_importer *imp, trak_sequence *seq, const trak_ev *ev) {
  trak_ev_block *b = seq->tail;
  if (TRAK_UNLIKELY(!b || b->n == TRAK_EV_BLOCK)) b = new_block(seq);
  b->ev[b->n++] = *ev;
  if (TRAK_UNLIKELY(ev->ts < seq->last_ts)) seq->unsorted = 1;
  seq->last_ts = ev->ts;
  seq->n_events++;
  imp->n_events++;
  uint32_t type = ev->track >> TRAK_EV_TYPE_SHIFT;
  imp->n_slice_records +=
      type == TRAK_EV_BEGIN || type == TRAK_EV_INSTANT || type == TRAK_EV_COMPLETE;
  imp->n_counter_records += type == TRAK_EV_COUNTER;
}
