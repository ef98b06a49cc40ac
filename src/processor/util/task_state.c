/*
** This file holds the task-state conversions of task_state.h: raw sched_switch prev_state bits
** to letters per kernel layout, and systrace letters to raw bits.
*/
#include <string.h>

#include "processor/util/task_state.h"

/* Perfetto's parsed flags: bits 0x01-0x20 are the kernel's own (S D T t X Z), the rest its
** choice, independent of the kernel's layout. */
enum {
  ST_SLEEP = 0x1,      /* S */
  ST_DISK = 0x2,       /* D */
  ST_STOPPED = 0x4,    /* T */
  ST_TRACED = 0x8,     /* t */
  ST_DEAD = 0x10,      /* X */
  ST_ZOMBIE = 0x20,    /* Z */
  ST_PARKED = 0x40,    /* P */
  ST_TASK_DEAD = 0x80, /* x */
  ST_WAKEKILL = 0x100, /* K */
  ST_WAKING = 0x200,   /* W */
  ST_NOLOAD = 0x400,   /* N */
  ST_IDLE = 0x4000,    /* I */
  ST_PREEMPTED = 0x8000,
  ST_INVALID = 0xffff
};

static const struct {
  uint16_t flag;
  char letter;
} letters[] = {{ST_SLEEP, 'S'},    {ST_DISK, 'D'},   {ST_STOPPED, 'T'}, {ST_TRACED, 't'},
               {ST_DEAD, 'X'},     {ST_ZOMBIE, 'Z'}, {ST_PARKED, 'P'},  {ST_TASK_DEAD, 'x'},
               {ST_WAKEKILL, 'K'}, {ST_WAKING, 'W'}, {ST_NOLOAD, 'N'},  {ST_IDLE, 'I'}};

/* The parsed flags of raw bits under a kernel layout. */
static uint32_t parse_raw(uint16_t raw, int major, int minor) {
  uint32_t st = raw & 0x3f;
  if (major == 0 && minor == 0) {
    major = 4;
    minor = 4;
  }
  int version = major * 1000 + minor;
  if (version >= 4014) {
    if (raw & 0x40) st |= ST_PARKED;
    if (raw & 0x80) st |= ST_IDLE; /* REPORT_TASK_IDLE */
    if (raw & 0x100) st |= ST_PREEMPTED;
    return raw & 0xfe00 ? ST_INVALID : st;
  }
  if (raw & 0x40) st |= ST_TASK_DEAD;
  if (raw & 0x80) st |= ST_WAKEKILL;
  if (raw & 0x100) st |= ST_WAKING;
  if (raw & 0x200) st |= ST_PARKED;
  if (raw & 0x400) st |= ST_NOLOAD;
  if (st == (ST_DISK | ST_NOLOAD)) st = ST_IDLE;
  if (raw & (version >= 4008 ? 0x1000 : 0x800)) st |= ST_PREEMPTED;
  return st;
}

int trak__task_state_letters(uint16_t raw, int major, int minor, char out[4]) {
  uint32_t st = parse_raw(raw, major, minor);
  size_t n = 0;
  out[0] = '\0';
  if (st == ST_INVALID) return -1;
  if (!(st & ~(uint32_t)ST_PREEMPTED)) {
    out[n++] = 'R';
    if (st & ST_PREEMPTED) out[n++] = '+';
  } else {
    for (size_t i = 0; i < sizeof letters / sizeof *letters && n < 3; i++)
      if (st & letters[i].flag) out[n++] = letters[i].letter;
  }
  out[n] = '\0';
  return 0;
}

uint16_t trak__task_state_from_systrace(const char *s, size_t len) {
  if (!len) return TRAK_TASK_STATE_RAW_INVALID;
  if (s[0] == 'R') return len == 2 && s[1] == '+' ? 0x800 : 0;
  uint32_t st = 0;
  for (size_t i = 0; i < len; i++) {
    char c = s[i];
    if (c == '|') continue;
    size_t k = 0;
    while (k < sizeof letters / sizeof *letters && letters[k].letter != c)
      k++;
    if (k == sizeof letters / sizeof *letters) return TRAK_TASK_STATE_RAW_INVALID;
    st |= letters[k].flag;
  }
  /* Back to kernel 4.4's raw layout. */
  uint16_t raw = st & 0x3f;
  if (st & ST_TASK_DEAD) raw |= 0x40;
  if (st & ST_WAKEKILL) raw |= 0x80;
  if (st & ST_WAKING) raw |= 0x100;
  if (st & ST_PARKED) raw |= 0x200;
  if (st & ST_NOLOAD) raw |= 0x400;
  if (st & ST_IDLE) raw |= 0x2 | 0x400;
  return raw;
}
