/*
** This file holds the ring buffer page decoder: one page of per_cpu/cpuN/trace_pipe_raw into
** its data records with their absolute timestamps, following the kernel's record header (5
** bits of type or length, 27 bits of time delta) and its padding, time-extend and
** absolute-timestamp records. It is the first code to read kernel bytes and trusts none.
*/
#include <string.h>

#include "probes/ftrace.h"
#include "trak/protos.h"

enum { TYPE_PADDING = 29, TYPE_TIME_EXTEND = 30, TYPE_TIME_STAMP = 31 };

static inline uint32_t rd32(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

int trak__ftrace_page_parse(const trak__ftrace_page_layout *l, const uint8_t *page, size_t len,
                            trak__ftrace_record_fn fn, void *user, trak__ftrace_page_info *info) {
  memset(info, 0, sizeof *info);
  if (len < l->data_offset || l->ts_offset + 8u > len ||
      l->commit_offset + (size_t)l->commit_size > len)
    return TRAK_PB_FTRACE_STATUS_ABI_INVALID_PAGE_HEADER;
  memcpy(&info->base_ts, page + l->ts_offset, 8);
  uint32_t commit = rd32(page + l->commit_offset); /* little-endian: the low word */
  info->size = commit & ((1u << 27) - 1);
  info->lost_events = (commit >> 31) & 1;
  info->last_ts = info->base_ts;
  if (info->size > len - l->data_offset) return TRAK_PB_FTRACE_STATUS_ABI_INVALID_PAGE_HEADER;
  const uint8_t *p = page + l->data_offset, *end = p + info->size;
  uint64_t ts = info->base_ts;
  while (p < end) {
    if (end - p < 4) return TRAK_PB_FTRACE_STATUS_ABI_SHORT_EVENT_HEADER;
    uint32_t h = rd32(p);
    p += 4;
    uint32_t type = h & 31, delta = h >> 5;
    ts += delta;
    if (type == TYPE_PADDING) {
      if (delta == 0) return TRAK_PB_FTRACE_STATUS_ABI_NULL_PADDING;
      if (end - p < 4) return TRAK_PB_FTRACE_STATUS_ABI_SHORT_PADDING_LENGTH;
      uint32_t n = rd32(p);
      if (n < 4 || n > (size_t)(end - p)) return TRAK_PB_FTRACE_STATUS_ABI_INVALID_PADDING_LENGTH;
      p += n;
    } else if (type == TYPE_TIME_EXTEND || type == TYPE_TIME_STAMP) {
      if (end - p < 4)
        return type == TYPE_TIME_EXTEND ? TRAK_PB_FTRACE_STATUS_ABI_SHORT_TIME_EXTEND
                                        : TRAK_PB_FTRACE_STATUS_ABI_SHORT_TIME_STAMP;
      uint64_t ext = (uint64_t)rd32(p) << 27;
      p += 4;
      ts = type == TYPE_TIME_EXTEND ? ts + ext : delta + ext;
    } else {
      uint32_t n;
      if (type == 0) {
        if (end - p < 4) return TRAK_PB_FTRACE_STATUS_ABI_SHORT_DATA_LENGTH;
        n = rd32(p);
        p += 4;
        if (n == 0) return TRAK_PB_FTRACE_STATUS_ABI_ZERO_DATA_LENGTH;
        if (n < 4) return TRAK_PB_FTRACE_STATUS_ABI_INVALID_DATA_LENGTH;
        n -= 4;
      } else {
        n = type * 4;
      }
      if (n > (size_t)(end - p)) return TRAK_PB_FTRACE_STATUS_ABI_END_OVERFLOW;
      if (n < 2) return TRAK_PB_FTRACE_STATUS_ABI_SHORT_EVENT_ID;
      fn(user, ts, p, n);
      info->records++;
      info->last_ts = ts;
      p += n;
    }
  }
  return TRAK_PB_FTRACE_STATUS_OK;
}
