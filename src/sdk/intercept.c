/*
** Interceptors: the registry (by name, open for the whole life of the process, the built-in
** "console" included), their per-instance state and lock, and the delivery of packets.
**
** Delivery. A writer bound to an intercepted instance writes its packets exactly as it would
** into the session's buffer, but into a private chunk of its own (writer.c). After each event
** or trace call, trak__icpt_deliver() walks the packets of that chunk, hands each to the
** interceptor's on_packet with its sequence id, flags and the sequence's thread state, and
** empties the chunk. So interception shares every encoding path with ordinary tracing and
** costs the ordinary path nothing (see TRAK__GEN_ICPT).
*/
#include <stdlib.h>
#include <string.h>

#include "sdk/internal.h"

#define ICPT_CHUNK_SIZE 4096 /* room for the largest packet an intercepted writer may write */

typedef struct trak__icpt {
  trak_interceptor_desc desc; /* name owned */
  struct trak__icpt *next;
} trak__icpt;

struct trak__icpt_inst {
  const trak__icpt *ic;
  void *state;
  const char *ds_name; /* the data source's registry name (lives forever) */
  uint32_t instance;
  pthread_mutex_t lock; /* trak_interceptor_lock */
};

static pthread_mutex_t icpt_lock = PTHREAD_MUTEX_INITIALIZER;
static trak__icpt *icpts; /* registered interceptors, never freed */
static pthread_once_t builtins_once = PTHREAD_ONCE_INIT;

uint32_t trak__icpt_chunk_size(void) {
  return ICPT_CHUNK_SIZE;
}

static trak__icpt *find_locked(const char *name) {
  for (trak__icpt *ic = icpts; ic; ic = ic->next)
    if (strcmp(ic->desc.name, name) == 0) return ic;
  return NULL;
}

static int register_one(const trak_interceptor_desc *desc, trak_error *err) {
  if (!desc->name || !desc->name[0] || !desc->on_packet)
    return trak_error_set(err, TRAK_EINVAL, "an interceptor needs a name and on_packet");
  trak__icpt *ic = calloc(1, sizeof *ic);
  char *name = strdup(desc->name);
  if (!ic || !name) {
    free(ic);
    free(name);
    return trak_error_set(err, TRAK_ENOMEM, "out of memory");
  }
  ic->desc = *desc;
  ic->desc.name = name;
  pthread_mutex_lock(&icpt_lock);
  int taken = find_locked(name) != NULL;
  if (!taken) {
    ic->next = icpts;
    icpts = ic;
  }
  pthread_mutex_unlock(&icpt_lock);
  if (taken) {
    free(name);
    free(ic);
    return trak_error_set(err, TRAK_EINVAL, "interceptor \"%s\" is already registered", desc->name);
  }
  return 0;
}

static void register_builtins(void) {
  register_one(&trak__console_desc, NULL);
}

int trak_interceptor_register(const trak_interceptor_desc *desc, trak_error *err) {
  pthread_once(&builtins_once, register_builtins);
  return register_one(desc, err);
}

int trak__icpt_setup(const char *name, const uint8_t *config, size_t len, const char *ds_name,
                     uint32_t instance, struct trak__icpt_inst **out, trak_error *err) {
  pthread_once(&builtins_once, register_builtins);
  pthread_mutex_lock(&icpt_lock);
  const trak__icpt *ic = find_locked(name);
  pthread_mutex_unlock(&icpt_lock);
  if (!ic)
    return trak_error_set(err, TRAK_ENOTFOUND,
                          "data source \"%s\": interceptor \"%s\" is not registered", ds_name,
                          name);
  struct trak__icpt_inst *ii = calloc(1, sizeof *ii);
  if (!ii) return trak_error_set(err, TRAK_ENOMEM, "out of memory");
  ii->ic = ic;
  ii->ds_name = ds_name;
  ii->instance = instance;
  pthread_mutex_init(&ii->lock, NULL);
  if (ic->desc.setup) {
    int rc = ic->desc.setup(ic->desc.user, config, len, &ii->state, err);
    if (rc) {
      pthread_mutex_destroy(&ii->lock);
      free(ii);
      return rc < 0 ? rc
                    : trak_error_set(err, TRAK_EINVAL, "interceptor \"%s\": setup failed", name);
    }
  }
  *out = ii;
  return 0;
}

void trak__icpt_start(struct trak__icpt_inst *ii) {
  if (ii->ic->desc.start) ii->ic->desc.start(ii->ic->desc.user, ii->state);
}

void trak__icpt_stop(struct trak__icpt_inst *ii) {
  if (ii->ic->desc.stop) ii->ic->desc.stop(ii->ic->desc.user, ii->state);
  pthread_mutex_destroy(&ii->lock);
  free(ii);
}

void trak__icpt_tls_free(trak__writer *w) {
  const trak__icpt *ic = w->icpt_owner;
  if (w->icpt_tls && ic->desc.thread_state_free)
    ic->desc.thread_state_free(ic->desc.user, w->icpt_tls);
  w->icpt_tls = NULL;
  w->icpt_owner = NULL;
}

/* A varint at p (before end); NULL when truncated. Packets here come from trak's own writers,
** are small, and sit at the end of a chunk, so this simple loop beats the general decoder,
** whose fast path needs slack after the field. */
static inline const uint8_t *get_varint(const uint8_t *p, const uint8_t *end, uint64_t *v) {
  uint64_t r = 0;
  for (int shift = 0; p < end && shift < 64; shift += 7) {
    uint8_t b = *p++;
    r |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *v = r;
      return p;
    }
  }
  return NULL;
}

/* The packet's sequence_flags (top-level field; 0 when absent). */
static uint32_t packet_flags(const uint8_t *p, const uint8_t *end) {
  uint32_t flags = 0;
  uint64_t tag, v;
  while (p < end && (p = get_varint(p, end, &tag)) != NULL) {
    switch (tag & 7) {
    case TRAK_PB_WIRE_VARINT:
      if (!(p = get_varint(p, end, &v))) return flags;
      if (tag >> 3 == TRAK_PB_TracePacket_sequence_flags) flags = (uint32_t)v;
      break;
    case TRAK_PB_WIRE_FIXED64:
      p += 8;
      break;
    case TRAK_PB_WIRE_FIXED32:
      p += 4;
      break;
    case TRAK_PB_WIRE_LEN:
      if (!(p = get_varint(p, end, &v)) || v > (uint64_t)(end - p)) return flags;
      p += v;
      break;
    default:
      return flags;
    }
  }
  return flags;
}

void trak__icpt_deliver(trak__writer *w) {
  struct trak__icpt_inst *ii = w->icpt;
  const trak__icpt *ic = ii->ic;
  if (w->icpt_owner != ic) { /* the sequence's first packet for this interceptor */
    trak__icpt_tls_free(w);
    w->icpt_owner = ic;
    if (ic->desc.thread_state_new) w->icpt_tls = ic->desc.thread_state_new(ic->desc.user);
  }
  trak_intercepted_packet pkt;
  pkt.sequence_id = w->seq_id;
  pkt.data_source = ii->ds_name;
  pkt.instance = ii->instance;
  pkt.thread_state = w->icpt_tls;
  pkt.user = ic->desc.user;
  pkt.inst_ = ii;
  /* The chunk holds Trace.packet fields: a one-byte tag, a length, the packet. */
  const uint8_t *p = w->base, *end = w->p;
  uint64_t len;
  while (p < end && (p = get_varint(p + 1, end, &len)) != NULL && len <= (uint64_t)(end - p)) {
    pkt.data = p;
    pkt.len = (size_t)len;
    pkt.sequence_flags = packet_flags(p, p + len);
    ic->desc.on_packet(&pkt);
    p += len;
  }
  w->p = w->base;
  w->packets = 0;
  atomic_store_explicit(&w->chunk->fill, 0, memory_order_relaxed);
}

void *trak_interceptor_lock(const trak_intercepted_packet *packet) {
  pthread_mutex_lock(&packet->inst_->lock);
  return packet->inst_->state;
}

void trak_interceptor_unlock(const trak_intercepted_packet *packet) {
  pthread_mutex_unlock(&packet->inst_->lock);
}
