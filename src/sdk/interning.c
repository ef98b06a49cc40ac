/*
** trak_interning: the dictionaries of a packet sequence's standard interned strings, for
** interceptors (the console interceptor keeps one per sequence). Each kind is an array indexed
** by iid: trak's writers hand out dense iids from 1, and an iid beyond MAX_IID is ignored
** rather than allowed to allocate without bound.
*/
#include <stdlib.h>
#include <string.h>

#include "sdk/internal.h"

#define MAX_IID (1u << 20)

typedef struct entry {
  char *s;
  size_t len;
} entry;

typedef struct kind_tab {
  entry *v;
  size_t cap;
} kind_tab;

/* The kinds kept: InternedData fields whose entries are {iid = 1, string = 2}. */
static const uint32_t kinds[] = {TRAK_PB_InternedData_event_categories,
                                 TRAK_PB_InternedData_event_names,
                                 TRAK_PB_InternedData_debug_annotation_names,
                                 TRAK_PB_InternedData_debug_annotation_string_values};
#define NKINDS (sizeof kinds / sizeof kinds[0])

struct trak_interning {
  kind_tab k[NKINDS];
};

static int kind_index(uint32_t field) {
  for (size_t i = 0; i < NKINDS; i++)
    if (kinds[i] == field) return (int)i;
  return -1;
}

trak_interning *trak_interning_new(void) {
  return calloc(1, sizeof(trak_interning));
}

void trak_interning_clear(trak_interning *in) {
  for (size_t k = 0; k < NKINDS; k++) {
    kind_tab *t = &in->k[k];
    for (size_t i = 0; i < t->cap; i++) {
      free(t->v[i].s);
      t->v[i].s = NULL;
    }
  }
}

void trak_interning_free(trak_interning *in) {
  if (!in) return;
  trak_interning_clear(in);
  for (size_t k = 0; k < NKINDS; k++)
    free(in->k[k].v);
  free(in);
}

static int put(kind_tab *t, uint64_t iid, const uint8_t *s, size_t len) {
  if (iid == 0 || iid >= MAX_IID) return 0;
  if (iid >= t->cap) {
    size_t cap = t->cap ? t->cap : 64;
    while (cap <= iid)
      cap *= 2;
    entry *grown = realloc(t->v, cap * sizeof *grown);
    if (!grown) return TRAK_ENOMEM;
    memset(grown + t->cap, 0, (cap - t->cap) * sizeof *grown);
    t->v = grown;
    t->cap = cap;
  }
  char *copy = malloc(len + 1);
  if (!copy) return TRAK_ENOMEM;
  memcpy(copy, s, len);
  copy[len] = 0;
  free(t->v[iid].s);
  t->v[iid].s = copy;
  t->v[iid].len = len;
  return 0;
}

/* Records the entries of one InternedData message. */
static int update_interned(trak_interning *in, const uint8_t *data, size_t len) {
  trak_pb_decoder d, e;
  trak_pb_field f, g;
  trak_pb_decoder_init(&d, data, len);
  int rc;
  while ((rc = trak_pb_decoder_next(&d, &f)) == 1) {
    int k = kind_index(f.number);
    if (k < 0 || f.wire_type != TRAK_PB_WIRE_LEN) continue;
    uint64_t iid = 0;
    const uint8_t *s = NULL;
    size_t slen = 0;
    trak_pb_decoder_init(&e, f.data, f.len);
    while (trak_pb_decoder_next(&e, &g) == 1) {
      if (g.number == TRAK_PB_EventName_iid && g.wire_type == TRAK_PB_WIRE_VARINT) iid = g.value;
      if (g.number == TRAK_PB_EventName_name && g.wire_type == TRAK_PB_WIRE_LEN) {
        s = g.data;
        slen = g.len;
      }
    }
    if (e.error) return TRAK_EFORMAT;
    if (s && put(&in->k[k], iid, s, slen) != 0) return TRAK_ENOMEM;
  }
  return rc < 0 ? TRAK_EFORMAT : 0;
}

int trak_interning_update(trak_interning *in, const uint8_t *packet, size_t len, uint32_t flags) {
  if (flags & TRAK_PB_TracePacket_SEQ_INCREMENTAL_STATE_CLEARED) trak_interning_clear(in);
  trak_pb_decoder d;
  trak_pb_field f;
  trak_pb_decoder_init(&d, packet, len);
  int rc;
  while ((rc = trak_pb_decoder_next(&d, &f)) == 1) {
    if (f.number != TRAK_PB_TracePacket_interned_data || f.wire_type != TRAK_PB_WIRE_LEN) continue;
    int r = update_interned(in, f.data, f.len);
    if (r) return r;
  }
  return rc < 0 ? TRAK_EFORMAT : 0;
}

const char *trak_interning_get(const trak_interning *in, uint32_t kind, uint64_t iid, size_t *len) {
  int k = kind_index(kind);
  if (k < 0 || iid >= in->k[k].cap || !in->k[k].v[iid].s) return NULL;
  if (len) *len = in->k[k].v[iid].len;
  return in->k[k].v[iid].s;
}
