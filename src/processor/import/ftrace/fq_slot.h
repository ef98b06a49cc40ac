/*
** The ftrace queues' narrow record (ftrace_queue.c): a queued trak_fq_rec kept in 32 bytes, not
** 48, when its small fields fit (cpu under 256, prios -1 to 254, x 0 to 65535: every sched_switch,
** sched_waking and generic event of a usual trace), so that the queues, which hold every event
** of a trace until the merge, write and make present a third fewer bytes. A record that does not
** fit is kept whole elsewhere and its slot says where (TRAK_FQ_SLOT_SPILL).
*/
#ifndef TRAK_PROCESSOR_IMPORT_FTRACE_FQ_SLOT_H
#define TRAK_PROCESSOR_IMPORT_FTRACE_FQ_SLOT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "processor/import/ftrace/ftrace_internal.h"

/* A record of 32 bytes: ts, pid, a, s1 and s2 as the record's; the others narrowed. */
typedef struct trak_fq_slot {
  int64_t ts;
  uint32_t pid, a, s1, s2; /* a: the spilled record's index for TRAK_FQ_SLOT_SPILL */
  uint8_t type;            /* the record's type, its has_flags in bit 7; or TRAK_FQ_SLOT_SPILL */
  uint8_t cpu;
  uint8_t p1, p2; /* the record's p1 + 1, p2 + 1 */
  uint16_t flags;
  uint16_t x;
} trak_fq_slot;

#define TRAK_FQ_SLOT_SPILL 0x7fu /* a slot standing for a record kept whole */

_Static_assert(sizeof(trak_fq_slot) == 32, "a slot is 32 bytes");
_Static_assert(TRAK_FQ_GPU_MEM < TRAK_FQ_SLOT_SPILL, "record types fit in 7 bits");

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "a slot's last 8 bytes are one word");
_Static_assert(offsetof(trak_fq_rec, s2) == offsetof(trak_fq_rec, pid) + 12 &&
                   offsetof(trak_fq_slot, s2) == offsetof(trak_fq_slot, pid) + 12 &&
                   offsetof(trak_fq_slot, x) == 30,
               "pid, a, s1 and s2 are 16 bytes in both forms; type to x the slot's last 8");

/* Whether record r fits a slot. */
static inline int trak__fq_slot_fits(const trak_fq_rec *r) {
  return !(((uint64_t)r->x >> 16) | (r->cpu >> 8) |
           ((((uint32_t)r->p1 + 1u) | ((uint32_t)r->p2 + 1u)) >> 8) |
           (uint32_t)(r->has_flags >> 1) | (uint32_t)(r->type >= TRAK_FQ_SLOT_SPILL));
}

/* Writes record r, which fits (trak__fq_slot_fits), to slot s: pid to s2 in one copy, type to x
** as one word. */
static inline void trak__fq_slot_pack(trak_fq_slot *s, const trak_fq_rec *r) {
  s->ts = r->ts;
  memcpy(&s->pid, &r->pid, 16);
  uint64_t tail = (uint64_t)(r->type | r->has_flags << 7) | (uint64_t)(uint8_t)r->cpu << 8 |
                  (uint64_t)(uint8_t)(r->p1 + 1) << 16 | (uint64_t)(uint8_t)(r->p2 + 1) << 24 |
                  (uint64_t)r->flags << 32 | (uint64_t)(uint16_t)r->x << 48;
  memcpy(&s->type, &tail, 8);
}

/* The record that slot s (not a spill) holds, into r. */
static inline void trak__fq_slot_unpack(trak_fq_rec *r, const trak_fq_slot *s) {
  uint64_t tail;
  memcpy(&tail, &s->type, 8);
  r->ts = s->ts;
  r->x = (int64_t)(tail >> 48);
  r->cpu = (uint32_t)(tail >> 8) & 0xff;
  memcpy(&r->pid, &s->pid, 16);
  r->p1 = (int32_t)((tail >> 16) & 0xff) - 1, r->p2 = (int32_t)((tail >> 24) & 0xff) - 1;
  r->type = (uint8_t)(tail & 0x7f);
  r->has_flags = (uint8_t)(tail >> 7 & 1);
  r->flags = (uint16_t)(tail >> 32);
}

#endif /* TRAK_PROCESSOR_IMPORT_FTRACE_FQ_SLOT_H */
