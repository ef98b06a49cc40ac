/*
** Tracks: uuids derived from a name and a parent (Perfetto's, so both SDKs agree), the registry of custom track descriptors
** (set, replaced, erased by the user), and the thread and process descriptors every writer
** sequence writes when it (re)starts its incremental state. A writer writes a custom track's
** descriptor before its first event on that track in each sequence generation (writer.c).
*/
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sdk/internal.h"

typedef struct desc_entry {
  uint64_t uuid;
  uint8_t *fields; /* serialized TrackDescriptor fields without the uuid */
  size_t len;
  struct desc_entry *next;
} desc_entry;

static pthread_mutex_t desc_lock = PTHREAD_MUTEX_INITIALIZER;
static desc_entry *descs; /* short list: custom tracks are few */
static char process_name[128];

void trak__track_lock(int lock) {
  if (lock)
    pthread_mutex_lock(&desc_lock);
  else
    pthread_mutex_unlock(&desc_lock);
}

static uint64_t fnv1a(const char *s, uint64_t h) {
  for (; *s; s++)
    h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
  return h;
}

/* Perfetto's uuid of a track named `name` with `magic` (its kind) under `parent` (0: the
** process): FNV-1a of the name, xor the magic, xor the parent's uuid. */
static trak_track name_uuid(const char *name, uint64_t magic, trak_track parent) {
  if (!parent) parent = trak_track_process();
  return fnv1a(name, 0xcbf29ce484222325ull) ^ magic ^ parent;
}

trak_track trak_track_uuid(const char *name, trak_track parent) {
  return name_uuid(name, TRAK_TRACK_NAMED_MAGIC, parent);
}

trak_track trak_track_counter_uuid(const char *name, trak_track parent) {
  return name_uuid(name, TRAK_TRACK_COUNTER_MAGIC, parent);
}

static desc_entry **find_locked(uint64_t uuid) {
  desc_entry **e = &descs;
  while (*e && (*e)->uuid != uuid)
    e = &(*e)->next;
  return e;
}

typedef struct emit_args {
  uint64_t uuid;
} emit_args;

static void put_registered(trak_pb_buf *b, void *user) {
  trak__track_put_descriptor(b, ((emit_args *)user)->uuid);
}

/* Writes the descriptor into every session now, from the calling thread's writers. */
static void emit_now(uint64_t uuid) {
  uint32_t mask = trak__started_mask();
  emit_args a = {uuid};
  if (mask) trak__packet_all(mask, put_registered, &a);
}

int trak_track_set_descriptor_raw(trak_track uuid, const void *fields, size_t len) {
  uint8_t *copy = malloc(len ? len : 1);
  if (!copy) return TRAK_ENOMEM;
  memcpy(copy, fields, len);
  pthread_mutex_lock(&desc_lock);
  desc_entry **e = find_locked(uuid);
  if (!*e && (*e = calloc(1, sizeof **e)) == NULL) {
    pthread_mutex_unlock(&desc_lock);
    free(copy);
    return TRAK_ENOMEM;
  }
  free((*e)->fields);
  (*e)->uuid = uuid;
  (*e)->fields = copy;
  (*e)->len = len;
  pthread_mutex_unlock(&desc_lock);
  emit_now(uuid);
  return 0;
}

int trak_track_set_descriptor(trak_track uuid, const trak_track_desc *d) {
  trak_pb_buf b;
  trak_pb_buf_init_heap(&b);
  trak_pb_put_varint(&b, TRAK_PB_TrackDescriptor_parent_uuid,
                     d->parent ? d->parent : trak_track_process());
  if (d->name) trak_pb_put_string(&b, TRAK_PB_TrackDescriptor_name, d->name);
  if (d->child_ordering)
    trak_pb_put_int32(&b, TRAK_PB_TrackDescriptor_child_ordering, d->child_ordering);
  if (d->has_sibling_order_rank)
    trak_pb_put_int32(&b, TRAK_PB_TrackDescriptor_sibling_order_rank, d->sibling_order_rank);
  if (d->is_counter) {
    trak_pb_nested c = trak_pb_begin_nested_short(&b, TRAK_PB_TrackDescriptor_counter);
    if (d->counter_unit) trak_pb_put_int32(&b, TRAK_PB_CounterDescriptor_unit, d->counter_unit);
    if (d->unit_name) trak_pb_put_string(&b, TRAK_PB_CounterDescriptor_unit_name, d->unit_name);
    trak_pb_end_nested_short(&b, c);
  }
  int rc = b.error ? b.error : trak_track_set_descriptor_raw(uuid, b.start, trak_pb_buf_len(&b));
  trak_pb_buf_free(&b);
  return rc;
}

void trak_track_erase_descriptor(trak_track uuid) {
  pthread_mutex_lock(&desc_lock);
  desc_entry **e = find_locked(uuid);
  if (*e) {
    desc_entry *dead = *e;
    *e = dead->next;
    free(dead->fields);
    free(dead);
  }
  pthread_mutex_unlock(&desc_lock);
}

trak_track trak_track_named(const char *name, trak_track parent) {
  trak_track uuid = trak_track_uuid(name, parent);
  trak_track_desc d = {0};
  d.name = name;
  d.parent = parent;
  trak_track_set_descriptor(uuid, &d);
  return uuid;
}

trak_track trak_track_counter(const char *name, int unit, trak_track parent) {
  trak_track uuid = trak_track_counter_uuid(name, parent);
  trak_track_desc d = {0};
  d.name = name;
  d.parent = parent;
  d.is_counter = 1;
  d.counter_unit = unit;
  trak_track_set_descriptor(uuid, &d);
  return uuid;
}

int trak_track_describe_once(trak_track uuid, const void *fields, size_t len) {
  pthread_mutex_lock(&desc_lock);
  int known = *find_locked(uuid) != NULL;
  pthread_mutex_unlock(&desc_lock);
  if (known) return 0;
  int rc = trak_track_set_descriptor_raw(uuid, fields, len);
  return rc ? rc : 1;
}

trak_track trak_track_counter_cached(const char *name, trak_track *cache) {
  trak_track uuid = trak_track_counter_uuid(name, 0);
  pthread_mutex_lock(&desc_lock);
  int known = *find_locked(uuid) != NULL;
  pthread_mutex_unlock(&desc_lock);
  if (!known) trak_track_counter(name, TRAK_UNIT_UNSPECIFIED, 0);
  if (cache) __atomic_store_n(cache, uuid, __ATOMIC_RELAXED);
  return uuid;
}

int trak__track_put_descriptor(trak_pb_buf *b, uint64_t uuid) {
  pthread_mutex_lock(&desc_lock);
  desc_entry *e = *find_locked(uuid);
  if (e) {
    trak_pb_nested n = trak_pb_begin_nested_short(b, TRAK_PB_TracePacket_track_descriptor);
    trak_pb_put_varint(b, TRAK_PB_TrackDescriptor_uuid, uuid);
    trak_pb_put_raw(b, e->fields, e->len);
    trak_pb_end_nested_short(b, n);
  }
  pthread_mutex_unlock(&desc_lock);
  return e != NULL;
}

void trak__put_thread_descriptor(trak_pb_buf *b, trak__thread *t) {
  trak_pb_nested n = trak_pb_begin_nested_short(b, TRAK_PB_TracePacket_track_descriptor);
  trak_pb_put_varint(b, TRAK_PB_TrackDescriptor_uuid, t->uuid);
  trak_pb_put_varint(b, TRAK_PB_TrackDescriptor_parent_uuid, trak__process_uuid());
  trak_pb_nested th = trak_pb_begin_nested_short(b, TRAK_PB_TrackDescriptor_thread);
  trak_pb_put_int32(b, TRAK_PB_ThreadDescriptor_pid, trak__pid);
  trak_pb_put_int64(b, TRAK_PB_ThreadDescriptor_tid, t->tid);
  if (t->name[0]) trak_pb_put_string(b, TRAK_PB_ThreadDescriptor_thread_name, t->name);
  trak_pb_end_nested_short(b, th);
  trak_pb_end_nested_short(b, n);
}

void trak__put_process_descriptor(trak_pb_buf *b) {
  trak_pb_nested n = trak_pb_begin_nested_short(b, TRAK_PB_TracePacket_track_descriptor);
  trak_pb_put_varint(b, TRAK_PB_TrackDescriptor_uuid, trak__process_uuid());
  trak_pb_nested pr = trak_pb_begin_nested_short(b, TRAK_PB_TrackDescriptor_process);
  trak_pb_put_int32(b, TRAK_PB_ProcessDescriptor_pid, trak__pid);
  pthread_mutex_lock(&desc_lock);
  const char *name = process_name[0] ? process_name : program_invocation_short_name;
  trak_pb_put_string(b, TRAK_PB_ProcessDescriptor_process_name, name);
  pthread_mutex_unlock(&desc_lock);
  trak_pb_end_nested_short(b, pr);
  trak_pb_end_nested_short(b, n);
}

void trak__process_name(char *buf, size_t size) {
  pthread_mutex_lock(&desc_lock);
  snprintf(buf, size, "%s", process_name[0] ? process_name : program_invocation_short_name);
  pthread_mutex_unlock(&desc_lock);
}

static void put_process(trak_pb_buf *b, void *user) {
  trak__put_process_descriptor(b);
}

void trak_process_set_name(const char *name) {
  pthread_mutex_lock(&desc_lock);
  snprintf(process_name, sizeof process_name, "%s", name);
  pthread_mutex_unlock(&desc_lock);
  uint32_t mask = trak__started_mask();
  if (mask) trak__packet_all(mask, put_process, NULL);
}
