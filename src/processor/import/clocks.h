/*
** Clocks (proto/clocks.c): ClockSnapshots relate each clock to the trace clock; timestamps
** in any clock convert to trace time through them. The types live here because the importer
** holds the clocks and the SQL layer reads them (to_realtime and its kin).
*/
#ifndef TRAK_PROCESSOR_IMPORT_CLOCKS_H
#define TRAK_PROCESSOR_IMPORT_CLOCKS_H

#include <stdint.h>
#include "processor/tables/import_result.h"
#include "processor/tables/storage.h"

typedef struct trak_importer trak_importer;
typedef struct trak_sequence trak_sequence;

/* A clock and its snapshots' pairs (trak_clock_pair: tables/import_result.h). */
typedef struct trak_clock {
  uint64_t key;        /* clock id, or sequence << 32 | id for ids 64..127 */
  uint64_t multiplier; /* unit_multiplier_ns (1 by default) */
  uint8_t incremental;
  uint8_t has_via; /* its snapshots lack the trace clock: pairs lead to clock `via` (a key) */
  uint64_t via;
  int64_t last; /* incremental clocks: last absolute value (in units) */
  TRAK_VEC(trak_clock_pair) pairs;
} trak_clock;

/* Clocks (clocks.c). */
/* The key of clock `clock_id` as read on `seq`: its id, or the sequence's for ids 64..127. */
uint64_t trak__clock_key(const trak_sequence *seq, uint32_t clock_id);
void trak__clock_snapshot_add(trak_importer *imp, trak_sequence *seq, const uint8_t *data,
                              size_t len);
/* Converts `ts` in clock `clock_id` to the trace clock. Returns 0; or 1 (nothing reported)
** if no snapshot relates the clocks yet and the trace is still being read: the caller keeps
** the packet to retry at the end, as Perfetto defers it; or -1 (reported) if none ever did.
** Callers use trak__clock_convert (importer.h), which answers the trace clock's own time inline
** (most packets, every ftrace event of a BOOTTIME trace) and calls this for any other clock. */
int trak__clock_convert_other(trak_importer *imp, trak_sequence *seq, uint32_t clock_id, int64_t ts,
                              int64_t *out);
/* A timestamp in clock `clock_id` that nothing relates to the trace clock (`known`: some
** snapshot has the clock, so the path is missing, not the clock): 1 if `may_defer` and the trace
** has not ended (a later snapshot may relate it: the caller retries it at the end), else -1
** after counting clock_sync_failure_no_path (or _unknown_source_clock) and the packet lost; -1
** without a count when `out` is NULL. */
int trak__clock_unconvertible(trak_importer *imp, int known, int may_defer, uint32_t clock_id,
                              int64_t *out);
/* Whether a timestamp in clock `clock_id` converts to the trace clock now (it is the trace
** clock, or snapshots relate it). */
int trak__clock_related(trak_importer *imp, trak_sequence *seq, uint32_t clock_id);
/* `ts` in clock `clock_id` converted to the trace clock if a snapshot relates them, else `ts`
** as it is (Perfetto's rule for the legacy microsecond timestamps). Can't fail. */
int64_t trak__clock_try_convert(trak_importer *imp, trak_sequence *seq, uint32_t clock_id,
                                int64_t ts);

/* Remote machines (remote_clock_sync.c): RemoteClockSync packets relate a machine's clocks
** to the host's. A series holds (key, value) points in the order the syncs made them; while no
** key is below the one before it (`unsorted` 0), a lookup bisects instead of scanning. */
typedef struct trak_remote_point {
  int64_t key, value;
} trak_remote_point;
typedef struct trak_remote_series {
  uint8_t unsorted;
  TRAK_VEC(trak_remote_point) p;
} trak_remote_series;
/* A clock's sync edges: each point says the machine's clock `clock_id` read `key` when the
** host's same clock read key - value (value: the offset). */
typedef struct trak_remote_clock {
  uint32_t clock_id;
  trak_remote_series edges;
} trak_remote_clock;
/* A client reading: one of the machine's clocks in a sync's client_clocks (`snapshot` numbers
** the readings taken together; they are pushed together). */
typedef struct trak_remote_reading {
  uint32_t snapshot, clock_id;
  int64_t ts;
} trak_remote_reading;
/* The syncs that read both client clocks `from` and `to`: points (from's reading, to's), built
** from `readings` on first use and extended as syncs arrive (`upto`: readings looked at). */
typedef struct trak_remote_pair {
  uint32_t from, to;
  size_t upto;
  trak_remote_series readings;
} trak_remote_pair;
/* The last reading of a clock in the syncs that read the same clocks (`set`), to tell a clock
** going back, as Perfetto's clock tracker tells it (a snapshot of the same clocks, lower). */
typedef struct trak_remote_last {
  uint64_t set;
  uint32_t clock_id;
  int64_t ts;
} trak_remote_last;
typedef struct trak_remote_machine {
  uint8_t bridged;  /* a timestamp was converted before any edge: Perfetto's zero-offset bridge
                    ** to the host stays, and later syncs change nothing */
  uint8_t disabled; /* it wrote a ClockSnapshot of its own: its syncs are not applied */
  uint32_t snapshots;
  TRAK_VEC(trak_remote_clock) clocks; /* in the order of each clock's first edge */
  TRAK_VEC(trak_remote_reading) readings;
  TRAK_VEC(trak_remote_pair) pairs;
  TRAK_VEC(trak_remote_last) lasts;
  TRAK_VEC(uint32_t) backwards; /* clocks that went back: nothing converts from them after */
} trak_remote_machine;
/* A RemoteClockSync packet of the current machine (imp->threads.machine). Can't fail: a sync
** of the host, one before the host's first ClockSnapshot or one without a round trip relates
** nothing, as in Perfetto (which counts nothing either). */
void trak__remote_clock_sync_add(trak_importer *imp, const uint8_t *data, size_t len);
/* A ClockSnapshot packet was read on the current machine (the host's enable syncs). */
void trak__remote_clock_snapshot_seen(trak_importer *imp);
/* trak__clock_convert_other's contract, for a timestamp of a packet of a remote machine (the
** current one, not the host): through its sync edges and client readings to the host's clock,
** then as a host timestamp; without any, as a host timestamp (Perfetto's zero-offset bridge). */
int trak__remote_clock_convert(trak_importer *imp, trak_sequence *seq, uint32_t clock_id,
                               int64_t ts, int64_t *out);
/* Frees the machines' state (the importer's end). */
void trak__remote_clock_free(trak_importer *imp);

/* Perfetto's count of clock conversion cache misses (clock_cache.c). */
typedef struct trak_clock_cache trak_clock_cache;
/* One cache entry that holds for a clock's raw values [lo, hi): conversions it answers need no
** call (key UINT64_MAX or an empty range: none). */
typedef struct trak_clock_cache_fast {
  uint64_t key;
  int64_t lo, hi;
} trak_clock_cache_fast;
/* A clock of a snapshot as the model reads it: its key (clocks.c's), value in its units. */
typedef struct trak_clock_cache_clock {
  uint64_t key;
  int64_t ts, multiplier;
  uint8_t incremental;
} trak_clock_cache_clock;
/* A ClockSnapshot of `n` clocks (primary: its primary_trace_clock, 0: none), in file order. */
void trak__clock_cache_snapshot(trak_importer *imp, const trak_clock_cache_clock *clocks, size_t n,
                                uint32_t primary);
/* A timestamp Perfetto converts to trace time: `ts` in the units of clock `key`. Callers use
** trak__clock_cache_note (importer.h), which skips what the fast entry answers. */
void trak__clock_cache_convert(trak_importer *imp, uint64_t key, int64_t ts);
/* Frees the model (the importer's end). */
void trak__clock_cache_free(trak_importer *imp);

#endif /* TRAK_PROCESSOR_IMPORT_CLOCKS_H */
