/*
** This file holds the JSON reader's trace-event keys that are not on its fast path (json_keys.h):
** the field a key names when it is read by the tokenizer, and the learning of each phase's
** predicted keys and shape from the events read.
*/
#include <stddef.h>
#include <string.h>

#include "processor/import/json/json_keys.h"

/* Stores a member's value span in the field its key names. */
trak_json_value *trak__json_field_for(jevent *e, const char *k, size_t n) {
#define KEY(lit, f)                                                                                \
  if (!memcmp(k, lit, sizeof lit - 1)) return &e->f
  switch (n) {
  case 1:
    KEY("s", s);
    break;
  case 2:
    KEY("ph", ph);
    KEY("ts", ts);
    KEY("id", id);
    KEY("bp", bp);
    break;
  case 3:
    KEY("cat", cat);
    KEY("dur", dur);
    KEY("pid", pid);
    KEY("tid", tid);
    KEY("tts", tts);
    KEY("id2", id2);
    break;
  case 4:
    KEY("name", name);
    KEY("args", args);
    KEY("tdur", tdur);
    break;
  case 5:
    KEY("scope", scope);
    break;
  case 7:
    KEY("bind_id", bind_id);
    KEY("flow_in", flow_in);
    break;
  case 8:
    KEY("flow_out", flow_out);
    break;
  default:
    break;
  }
#undef KEY
  return NULL;
}

/* The keys of a jevent's fields, in JSON_KEY field order (json_import.h), and where each is. */
static const struct {
  const char *key;
  uint16_t off;
} key_fields[JSON_KEY_FIELDS] = {
#define F(k)                                                                                       \
  { #k, (uint16_t)offsetof(jevent, k) }
    F(ph),      F(name),    F(cat),      F(ts),  F(pid),  F(tid), F(args), F(dur),   F(s),
    F(bind_id), F(flow_in), F(flow_out), F(tts), F(tdur), F(id),  F(id2),  F(scope), F(bp),
#undef F
};

/* Learns that the key of field `slot` of e (NULL: no field) followed row `prev` of `row` (one
** of j->key_pred, whose phase's shape is then stale): written `"key":`, after a comma unless it
** is the event's first member. */
void trak__json_key_learn(trak_json_import *j, trak_json_key_pred *row, unsigned prev,
                          const jevent *e, const trak_json_value *slot) {
  j->shape_stale |= 1u << (unsigned)((row - j->key_pred[0]) / JSON_KEY_ROWS);
  trak_json_key_pred k = {0, ~0ULL, 0, 0, JSON_KEY_OTHER, 0};
  size_t off = slot ? (size_t)((const char *)slot - (const char *)e) : 0;
  for (unsigned f = 0; slot && f < JSON_KEY_FIELDS; f++) {
    if (key_fields[f].off != off) continue;
    size_t len = strlen(key_fields[f].key), n = (prev != JSON_KEY_START) + len + 3;
    k.field = (uint8_t)f, k.off = key_fields[f].off;
    if (n <= 8) { /* longer keys are not predicted (mask ~0, word 0) */
      char lit[8];
      lit[0] = ',';
      char *q = lit + (prev != JSON_KEY_START);
      *q++ = '"';
      memcpy(q, key_fields[f].key, len);
      q[len] = '"', q[len + 1] = ':';
      memcpy(&k.word, lit, n);
      k.mask = n == 8 ? ~0ULL : (1ULL << (8 * n)) - 1;
      k.len = (uint8_t)n;
    }
    break;
  }
  row[prev] = k;
}

/* Builds phase `ph`'s shape: the chain of its row's predictions from the "ph" field on, up to
** a key not predicted (too long, or none learnt) or a field met before. */
void trak__json_shape_build(trak_json_import *j, unsigned ph) {
  const trak_json_key_pred *row = j->key_pred[ph];
  trak_json_shape *sh = &j->shape[ph];
  uint32_t seen = 1u; /* field 0: ph */
  unsigned f = 0;
  sh->n = 0;
  while (sh->n < JSON_KEY_FIELDS) {
    const trak_json_key_pred *k = &row[f];
    if (!k->len || k->field >= JSON_KEY_FIELDS || (seen >> k->field & 1)) break;
    trak_json_shape_key *sk = &sh->keys[sh->n++];
    *sk = (trak_json_shape_key){.key = *k, .need = 1u << 16}; /* nothing kept */
    sk->key.memo = k->field == 4 || k->field == 5; /* pid, tid */
    seen |= 1u << k->field;
    f = k->field;
  }
  sh->keys[sh->n] = (trak_json_shape_key){.key = {.memo = 2}}; /* the end */
  j->shape_stale &= ~(1u << ph);
}

