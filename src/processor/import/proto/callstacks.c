/*
** This file holds TrackEvent callstacks (TrackEvent.callstack inline, or callstack_iid into
** InternedData.callstacks with its frames, mappings and strings) and the rows they make in
** Perfetto's stack profile tables. Tokenizing resolves an event's callstack to frames at once
** (interned data changes later); the parse phase interns the frames, their mappings, symbols
** and callsites in parse order, as Perfetto's importer does, so that ids match its own:
**   - inline frames share one mapping "track_event_inline" (start 0, end -1), interned frames
**     without a mapping another one named ""; such a frame is keyed by (function, file,
**     line), is at rel_pc 0 and always has a symbol row;
**   - a mapping with an address range, of an event with a process, is that process's (one row
**     per sequence, process and iid); else mappings with equal fields are one row. Its name is
**     its path components each after a '/' ("//" at the start made "/"), its build id hex
**     unless it is 33 characters long (a module id);
**   - a frame in a mapping is keyed by (mapping, rel_pc, function) and has a symbol row only
**     with a source file or line; callsites are keyed by (parent, frame, depth).
** Everything here is cold: only traces with callstacks get here.
*/
#include <string.h>

#include "processor/import/proto/proto.h"

enum { DUMMY_NONE, DUMMY_INLINE, DUMMY_INTERNED };

/* Decoded InternedData messages; lists of iids are runs in `ids`. */
typedef struct mapping_def {
  uint64_t build_id, exact_offset, start_offset, start, end, load_bias;
  uint32_t paths, n_paths;
} mapping_def;
typedef struct frame_def {
  uint64_t name_iid, mapping_iid, rel_pc, source_iid;
  int64_t line;  /* -1: none */
  uint32_t type; /* string id of the frame's kind, 0: none */
  uint8_t has_source;
} frame_def;
typedef struct stack_def {
  uint32_t frames, n;
} stack_def;

/* A mapping as an event's callstack resolved it; `row` is its table row once parsed. */
typedef struct mapping_key {
  trak_sp_mapping m;
  uint32_t seq, upid; /* for a process's mapping (else 0, TRAK_NULL_U32) */
  uint64_t iid;       /* idem */
} mapping_key;

/* A resolved frame: strings are string ids (0: absent, NULL in the tables, as Perfetto leaves
** an absent function name); `mapping` an index into `mappings` or, for a frame without one,
** DUMMY_*. */
typedef struct frame_ref {
  uint32_t name, source, type, dummy, mapping;
  int64_t line, rel_pc;
} frame_ref;

/* An event's callstack: a run in `frames`. */
typedef struct event_stack {
  uint32_t frames, n;
  uint8_t has_weight, is_end;
  double weight;
} event_stack;

/* Keys of the parse phase's interning (hashed; compared in full on a hit). */
typedef struct frame_key {
  uint32_t mapping_row, name, source, dummy;
  int64_t line, rel_pc;
} frame_key;

typedef struct trak_callstacks {
  TRAK_VEC(mapping_def) mapping_defs;
  TRAK_VEC(frame_def) frame_defs;
  TRAK_VEC(stack_def) stack_defs;
  trak_u64_vec ids;
  TRAK_VEC(mapping_key) mappings;
  TRAK_VEC(uint32_t) mapping_rows; /* mappings index -> table row, TRAK_NULL_U32 until used */
  trak_map mapping_index;          /* hash of a mapping_key -> mappings index */
  TRAK_VEC(frame_ref) frames;
  TRAK_VEC(event_stack) events;
  uint32_t dummy_rows[3];
  TRAK_VEC(frame_key) frame_keys; /* frame row -> its key */
  trak_map frame_index, callsite_index;
} trak_callstacks;

static uint64_t hash_bytes(const void *p, size_t n) {
  const uint8_t *b = p;
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++)
    h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

static trak_callstacks *state(trak_importer *imp) {
  if (!imp->callstacks) {
    imp->callstacks = calloc(1, sizeof *imp->callstacks);
    if (!imp->callstacks) abort();
    for (int i = 0; i < 3; i++)
      imp->callstacks->dummy_rows[i] = TRAK_NULL_U32;
  }
  return imp->callstacks;
}

int trak__pb_push_varints(const trak_pb_field *f, trak_u64_vec *out) {
  int rc = 0;
  if (f->wire_type == TRAK_PB_WIRE_VARINT) {
    trak_vec_push(*out, f->value);
  } else if (f->wire_type == TRAK_PB_WIRE_LEN) {
    trak_pb_packed it;
    uint64_t v;
    trak_pb_packed_init(&it, f, TRAK_PB_WIRE_VARINT);
    while ((rc = trak_pb_packed_next(&it, &v)) > 0)
      trak_vec_push(*out, v);
  }
  return rc;
}

/* The names Perfetto gives Frame.kind (NULL: unknown). */
static const char *frame_kind(uint64_t kind) {
  static const char *const names[] = {NULL,  "native", "kernel", "interpreted",
                                      "jit", "gc",     "runtime"};
  return kind < sizeof names / sizeof *names ? names[kind] : NULL;
}

void trak__callstack_interned(trak_importer *imp, trak_sequence *seq, uint32_t field,
                              const uint8_t *data, size_t len) {
  trak_callstacks *cs = state(imp);
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init(imp, &dec, data, len);
  uint64_t iid = 0;
  uint32_t index, kind;
  mapping_def m = {0};
  frame_def fr = {0};
  stack_def st = {(uint32_t)cs->ids.n, 0};
  m.paths = (uint32_t)cs->ids.n;
  fr.line = -1;
  int rc, bad = 0; /* bad: a packed id list does not decode */
  while ((rc = trak_pb_decoder_next(&dec, &f)) > 0) {
    int varint = f.wire_type == TRAK_PB_WIRE_VARINT;
    if (f.number == 1 && varint) { /* iid, in all three messages */
      iid = f.value;
    } else if (field == TRAK_PB_InternedData_mappings) {
      if (f.number == TRAK_PB_Mapping_path_string_ids) bad |= trak__pb_push_varints(&f, &cs->ids) < 0;
      if (!varint) continue;
      if (f.number == TRAK_PB_Mapping_build_id) m.build_id = f.value;
      if (f.number == TRAK_PB_Mapping_exact_offset) m.exact_offset = f.value;
      if (f.number == TRAK_PB_Mapping_start_offset) m.start_offset = f.value;
      if (f.number == TRAK_PB_Mapping_start) m.start = f.value;
      if (f.number == TRAK_PB_Mapping_end) m.end = f.value;
      if (f.number == TRAK_PB_Mapping_load_bias) m.load_bias = f.value;
    } else if (field == TRAK_PB_InternedData_frames) {
      if (f.number == TRAK_PB_Frame_kind_str && f.wire_type == TRAK_PB_WIRE_LEN)
        fr.type = trak__strpool_intern(&imp->tables->strings, (const char *)f.data, f.len);
      if (!varint) continue;
      if (f.number == TRAK_PB_Frame_function_name_id) fr.name_iid = f.value;
      if (f.number == TRAK_PB_Frame_mapping_id) fr.mapping_iid = f.value;
      if (f.number == TRAK_PB_Frame_rel_pc) fr.rel_pc = f.value;
      if (f.number == TRAK_PB_Frame_source_path_iid) fr.source_iid = f.value, fr.has_source = 1;
      if (f.number == TRAK_PB_Frame_line_number) fr.line = (int64_t)(uint32_t)f.value;
      if (f.number == TRAK_PB_Frame_kind) {
        const char *name = frame_kind(f.value);
        fr.type = name ? trak__strpool_intern(&imp->tables->strings, name, strlen(name)) : 0;
      }
    } else if (f.number == TRAK_PB_Callstack_frame_ids) {
      bad |= trak__pb_push_varints(&f, &cs->ids) < 0;
    }
  }
  if (rc < 0 || bad || !iid) {
    trak__report(imp, TRAK_STAT_INTERNED_ERRORS, "interned callstack table entry %s",
                 rc < 0 || bad ? "is malformed" : "has iid 0 or no iid (iid 0 is never valid)");
    return;
  }
  if (field == TRAK_PB_InternedData_mappings) {
    m.n_paths = (uint32_t)cs->ids.n - m.paths;
    index = (uint32_t)cs->mapping_defs.n, kind = TRAK_INTERN_MAPPING;
    trak_vec_push(cs->mapping_defs, m);
  } else if (field == TRAK_PB_InternedData_frames) {
    index = (uint32_t)cs->frame_defs.n, kind = TRAK_INTERN_FRAME;
    trak_vec_push(cs->frame_defs, fr);
  } else {
    st.n = (uint32_t)cs->ids.n - st.frames;
    index = (uint32_t)cs->stack_defs.n, kind = TRAK_INTERN_CALLSTACK;
    trak_vec_push(cs->stack_defs, st);
  }
  int added;
  uint32_t *slot = trak__map_put(&seq->interned[kind], iid, 0, &added);
  if (!added && *slot != index) seq->intern_epoch++;
  *slot = index;
}

/* ---- tokenizing: an event's callstack resolved to frames --------------------------------- */

/* The string interned under `iid` of `kind`, or 0 (reported). Absent strings of some kinds
** are "" in Perfetto: iid 0 gives `empty`'s id then. */
static uint32_t lookup(trak_importer *imp, trak_sequence *seq, int kind, uint64_t iid) {
  uint32_t *v = trak__map_get(&seq->interned[kind], iid);
  if (v) return *v;
  trak__report(imp, TRAK_STAT_INTERNED_ERRORS, "%s iid %llu is not interned on sequence %u",
               trak__intern_kind_names[kind], (unsigned long long)iid, seq->id);
  return TRAK_NULL_U32;
}

static uint32_t intern(trak_importer *imp, const char *s, size_t len) {
  return trak__strpool_intern(&imp->tables->strings, s, len);
}

uint32_t trak__callstack_path(trak_importer *imp, const uint64_t *ids, size_t n_ids) {
  trak_strpool *sp = &imp->tables->strings;
  char buf[4096];
  size_t n = 0;
  for (size_t i = 0; i < n_ids; i++) {
    size_t len = sp->len.v[ids[i]];
    if (n + 1 + len > sizeof buf) break;
    buf[n++] = '/';
    memcpy(buf + n, sp->str.v[ids[i]], len);
    n += len;
  }
  size_t skip = n >= 2 && buf[0] == '/' && buf[1] == '/';
  return intern(imp, buf + skip, n - skip);
}

/* A mapping's name from its path components (Perfetto stops at a missing one, counting it). */
static uint32_t mapping_name(trak_importer *imp, trak_sequence *seq, const mapping_def *m) {
  trak_callstacks *cs = imp->callstacks;
  uint64_t ids[2048]; /* more would not fit trak__callstack_path's 4 KiB */
  size_t n = 0;
  for (; n < m->n_paths && n < sizeof ids / sizeof *ids; n++) {
    uint32_t *id = trak__map_get(&seq->interned[TRAK_INTERN_MAPPING_PATH], cs->ids.v[m->paths + n]);
    if (!id) {
      trak__report(imp, TRAK_STAT_INTERNED_ERRORS, "mapping path iid %llu is not interned",
                   (unsigned long long)cs->ids.v[m->paths + n]);
      break;
    }
    ids[n] = *id;
  }
  return trak__callstack_path(imp, ids, n);
}

uint32_t trak__callstack_build_id(trak_importer *imp, uint32_t raw) {
  trak_strpool *sp = &imp->tables->strings;
  size_t len = sp->len.v[raw];
  if (len == 33) return raw;
  char buf[513];
  static const char hex[] = "0123456789abcdef";
  size_t n = 0;
  for (size_t i = 0; i < len && n + 2 < sizeof buf; i++) {
    uint8_t c = (uint8_t)sp->str.v[raw][i];
    buf[n++] = hex[c >> 4], buf[n++] = hex[c & 15];
  }
  return intern(imp, buf, n);
}

static uint32_t mapping_index(trak_callstacks *cs, const mapping_key *k);

/* The index in `mappings` of interned mapping `iid`, or TRAK_NULL_U32 (reported). */
static uint32_t resolve_mapping(trak_importer *imp, trak_sequence *seq, uint32_t upid,
                                uint64_t iid) {
  trak_callstacks *cs = imp->callstacks;
  uint32_t def = lookup(imp, seq, TRAK_INTERN_MAPPING, iid);
  if (def == TRAK_NULL_U32) return def;
  mapping_def m = cs->mapping_defs.v[def];
  mapping_key k;
  memset(&k, 0, sizeof k);
  k.upid = TRAK_NULL_U32;
  k.m.build_id = intern(imp, "", 0);
  if (m.build_id) {
    uint32_t raw = lookup(imp, seq, TRAK_INTERN_BUILD_ID, m.build_id);
    if (raw == TRAK_NULL_U32) return raw;
    if (imp->tables->strings.len.v[raw]) k.m.build_id = trak__callstack_build_id(imp, raw);
  }
  k.m.exact_offset = (int64_t)m.exact_offset, k.m.start_offset = (int64_t)m.start_offset;
  k.m.start = (int64_t)m.start, k.m.end = (int64_t)m.end, k.m.load_bias = (int64_t)m.load_bias;
  k.m.name = mapping_name(imp, seq, &m);
  if (m.end > m.start && upid != TRAK_NULL_U32) /* the process's own mapping */
    k.seq = seq->id, k.upid = upid, k.iid = iid;
  return mapping_index(cs, &k);
}

/* The index in `mappings` of the mapping `k` (added if new). */
static uint32_t mapping_index(trak_callstacks *cs, const mapping_key *k) {
  for (uint64_t h = hash_bytes(k, sizeof *k);; h++) {
    int added;
    uint32_t *slot = trak__map_put(&cs->mapping_index, h, (uint32_t)cs->mappings.n, &added);
    if (added) {
      trak_vec_push(cs->mappings, *k);
      trak_vec_push(cs->mapping_rows, TRAK_NULL_U32);
      return *slot;
    }
    if (!memcmp(&cs->mappings.v[*slot], k, sizeof *k)) return *slot;
  }
}

/* Appends the frames of interned callstack `iid`; returns 0, or -1 (reported). */
static int resolve_interned(trak_importer *imp, trak_sequence *seq, uint32_t upid, uint64_t iid) {
  trak_callstacks *cs = imp->callstacks;
  uint32_t def = lookup(imp, seq, TRAK_INTERN_CALLSTACK, iid);
  if (def == TRAK_NULL_U32) return -1;
  stack_def st = cs->stack_defs.v[def];
  for (uint32_t i = 0; i < st.n; i++) {
    uint32_t fd = lookup(imp, seq, TRAK_INTERN_FRAME, cs->ids.v[st.frames + i]);
    if (fd == TRAK_NULL_U32) return -1;
    frame_def d = cs->frame_defs.v[fd];
    frame_ref r = {0, 0, d.type, DUMMY_INTERNED, 0, d.line, 0};
    if (d.name_iid) r.name = lookup(imp, seq, TRAK_INTERN_FUNCTION_NAME, d.name_iid);
    if (d.has_source && d.source_iid)
      r.source = lookup(imp, seq, TRAK_INTERN_SOURCE_PATH, d.source_iid);
    if (r.name == TRAK_NULL_U32 || r.source == TRAK_NULL_U32) return -1;
    if (d.mapping_iid) {
      r.dummy = DUMMY_NONE, r.rel_pc = (int64_t)d.rel_pc;
      r.mapping = resolve_mapping(imp, seq, upid, d.mapping_iid);
      if (r.mapping == TRAK_NULL_U32) return -1;
    }
    trak_vec_push(cs->frames, r);
  }
  return 0;
}

/* Appends the frames of an inline TrackEvent.callstack. */
static void resolve_inline(trak_importer *imp, const trak_span *stack) {
  trak_callstacks *cs = imp->callstacks;
  trak_pb_decoder dec, sub;
  trak_pb_field f, g;
  trak__dec_init(imp, &dec, stack->data, stack->len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number != TRAK_PB_TrackEvent_Callstack_frames || f.wire_type != TRAK_PB_WIRE_LEN)
      continue;
    frame_ref r = {0, 0, 0, DUMMY_INLINE, 0, -1, 0};
    trak__dec_init(imp, &sub, f.data, f.len);
    while (trak_pb_decoder_next(&sub, &g) > 0) {
      if (g.wire_type == TRAK_PB_WIRE_LEN &&
          g.number == TRAK_PB_TrackEvent_Callstack_Frame_function_name)
        r.name = intern(imp, (const char *)g.data, g.len);
      else if (g.wire_type == TRAK_PB_WIRE_LEN &&
               g.number == TRAK_PB_TrackEvent_Callstack_Frame_source_file)
        r.source = intern(imp, (const char *)g.data, g.len);
      else if (g.wire_type == TRAK_PB_WIRE_VARINT &&
               g.number == TRAK_PB_TrackEvent_Callstack_Frame_line_number)
        r.line = (int64_t)(uint32_t)g.value;
    }
    trak_vec_push(cs->frames, r);
  }
}

/* Resolves a callstack (inline_stack, else interned `iid` of `seq`, whose process is `upid`) to
** frames now and keeps it as `e`. Returns 0 with *index its place in cs->events (TRAK_NULL_U32
** when it has no frame), or -1 when an iid it needs is unknown (nothing kept). */
static int stack_add(trak_importer *imp, trak_sequence *seq, uint32_t upid,
                     const trak_span *inline_stack, uint64_t iid, event_stack e, uint32_t *index) {
  trak_callstacks *cs = state(imp);
  e.frames = (uint32_t)cs->frames.n;
  *index = TRAK_NULL_U32;
  if (inline_stack) {
    resolve_inline(imp, inline_stack);
  } else if (iid && resolve_interned(imp, seq, upid, iid)) {
    cs->frames.n = e.frames;
    return -1;
  }
  e.n = (uint32_t)cs->frames.n - e.frames;
  if (!e.n) return 0;
  *index = (uint32_t)cs->events.n;
  trak_vec_push(cs->events, e);
  return 0;
}

uint32_t trak__callstack_sample(trak_importer *imp, trak_sequence *seq, uint32_t upid,
                                uint64_t iid, int *unresolved) {
  uint32_t index;
  event_stack e = {0, 0, 0, 0, 0};
  int failed = iid && stack_add(imp, seq, upid, NULL, iid, e, &index);
  if (unresolved) *unresolved = failed;
  return !iid || failed ? TRAK_NULL_U32 : index;
}

void trak__callstack_event(trak_importer *imp, trak_sequence *seq, trak_ev *ev, uint32_t upid,
                           const trak_span *inline_stack, uint64_t iid, int has_weight,
                           double weight) {
  event_stack e = {0, 0, (uint8_t)has_weight, ev->track >> TRAK_EV_TYPE_SHIFT == TRAK_EV_END,
                   weight};
  uint32_t index;
  if (stack_add(imp, seq, upid, inline_stack, iid, e, &index)) {
    /* Perfetto keeps no callsite of a callstack it cannot resolve, and counts the event in
    ** track_event_parser_errors */
    imp->stats[TRAK_STAT_BAD_TYPE]++;
    return;
  }
  if (index == TRAK_NULL_U32) return; /* no callsite: no row */
  /* the record's aux block (the last one made, or a new empty one) ends with the index */
  if (!ev->aux) {
    ev->aux = (uint32_t)imp->aux.n;
    trak_vec_push(imp->aux, 0);
    trak_vec_push(imp->aux, 0);
    trak_vec_push(imp->aux, 0);
  }
  imp->aux.v[ev->aux + 1] |= TRAK_AUX_CALLSTACK;
  trak_vec_push(imp->aux, index);
}

/* ---- parsing: rows in Perfetto's order ------------------------------------------------- */

static uint32_t mapping_row(trak_importer *imp, const frame_ref *r) {
  trak_callstacks *cs = imp->callstacks;
  trak_tables *t = imp->tables;
  uint32_t *row = r->dummy ? &cs->dummy_rows[r->dummy] : &cs->mapping_rows.v[r->mapping];
  if (*row != TRAK_NULL_U32) return *row;
  trak_sp_mapping m;
  if (r->dummy) {
    const char *name = r->dummy == DUMMY_INLINE ? "track_event_inline" : "";
    m = (trak_sp_mapping){intern(imp, "", 0), intern(imp, name, strlen(name)), 0, 0, 0, -1, 0};
  } else {
    m = cs->mappings.v[r->mapping].m;
  }
  *row = (uint32_t)t->stack_profile.mappings.n;
  trak_vec_push(t->stack_profile.mappings, m);
  return *row;
}

static uint32_t frame_row(trak_importer *imp, const frame_ref *r) {
  trak_callstacks *cs = imp->callstacks;
  trak_tables *t = imp->tables;
  frame_key k;
  memset(&k, 0, sizeof k);
  k.mapping_row = mapping_row(imp, r);
  k.name = r->name, k.dummy = r->dummy;
  if (r->dummy) /* a dummy mapping's frames are told apart by their source location */
    k.source = r->source, k.line = r->line;
  else
    k.rel_pc = r->rel_pc;
  uint32_t id = TRAK_NULL_U32;
  for (uint64_t h = hash_bytes(&k, sizeof k);; h++) {
    int added;
    uint32_t *slot =
        trak__map_put(&cs->frame_index, h, (uint32_t)t->stack_profile.frames.n, &added);
    if (!added && memcmp(&cs->frame_keys.v[*slot], &k, sizeof k)) continue;
    id = *slot;
    if (!added) break;
    trak_sp_frame fr = {r->name, k.mapping_row, TRAK_NULL_U32, 0, k.rel_pc, 0};
    if (r->dummy || r->source || r->line >= 0) {
      fr.symbol_set_id = (uint32_t)t->stack_profile.symbols.n;
      trak_sp_symbol sym = {r->name, r->source, r->line};
      trak_vec_push(t->stack_profile.symbols, sym);
    }
    trak_vec_push(t->stack_profile.frames, fr);
    trak_vec_push(cs->frame_keys, k);
    break;
  }
  if (r->type) t->stack_profile.frames.v[id].type = r->type;
  return id;
}

static uint32_t callsite_row(trak_importer *imp, uint32_t parent, uint32_t frame, uint32_t depth) {
  trak_callstacks *cs = imp->callstacks;
  trak_tables *t = imp->tables;
  trak_sp_callsite c = {depth, parent, frame};
  for (uint64_t h = hash_bytes(&c, sizeof c);; h++) {
    int added;
    uint32_t *slot =
        trak__map_put(&cs->callsite_index, h, (uint32_t)t->stack_profile.callsites.n, &added);
    if (added) {
      trak_vec_push(t->stack_profile.callsites, c);
      return *slot;
    }
    if (!memcmp(&t->stack_profile.callsites.v[*slot], &c, sizeof c)) return *slot;
  }
}

uint32_t trak__callstack_mapping(trak_importer *imp, const trak_sp_mapping *m) {
  trak_callstacks *cs = state(imp);
  mapping_key k;
  memset(&k, 0, sizeof k);
  k.m = *m;
  k.upid = TRAK_NULL_U32;
  frame_ref r = {0, 0, 0, DUMMY_NONE, mapping_index(cs, &k), -1, 0};
  mapping_row(imp, &r);
  return r.mapping;
}

uint32_t trak__callstack_frame(trak_importer *imp, uint32_t mapping, uint32_t name,
                               int64_t rel_pc) {
  frame_ref r = {name, 0, 0, DUMMY_NONE, mapping, -1, rel_pc};
  return frame_row(imp, &r);
}

uint32_t trak__callstack_site(trak_importer *imp, uint32_t parent, uint32_t frame,
                              uint32_t depth) {
  state(imp);
  return callsite_row(imp, parent, frame, depth);
}

uint32_t trak__callstack_callsite(trak_importer *imp, uint32_t index) {
  trak_callstacks *cs = imp->callstacks;
  event_stack e = cs->events.v[index];
  uint32_t callsite = TRAK_NULL_U32;
  for (uint32_t i = 0; i < e.n; i++)
    callsite = callsite_row(imp, callsite, frame_row(imp, &cs->frames.v[e.frames + i]), i);
  return callsite;
}

void trak__callstack_slice(trak_importer *imp, uint32_t index, uint32_t slice) {
  event_stack e = imp->callstacks->events.v[index];
  uint32_t callsite = trak__callstack_callsite(imp, index);
  trak_te_callstack row = {slice,
                           imp->tables->slice.track_id[slice],
                           e.is_end ? TRAK_NULL_U32 : callsite,
                           e.is_end ? callsite : TRAK_NULL_U32,
                           e.weight,
                           e.has_weight};
  trak_vec_push(imp->tables->stack_profile.te_callstacks, row);
}

void trak__callstacks_free(trak_importer *imp) {
  trak_callstacks *cs = imp->callstacks;
  if (!cs) return;
  trak_vec_free(cs->mapping_defs);
  trak_vec_free(cs->frame_defs);
  trak_vec_free(cs->stack_defs);
  trak_vec_free(cs->ids);
  trak_vec_free(cs->mappings);
  trak_vec_free(cs->mapping_rows);
  trak_vec_free(cs->frames);
  trak_vec_free(cs->events);
  trak_vec_free(cs->frame_keys);
  trak__map_free(&cs->mapping_index);
  trak__map_free(&cs->frame_index);
  trak__map_free(&cs->callsite_index);
  free(cs);
  imp->callstacks = NULL;
}
