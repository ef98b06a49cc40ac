/*
** tracefs control for `trak probes` (tracefs.c): finding and checking the mount, reading and
** writing its files, and the restore state: what a recording changed is written to a state
** file before it is changed, so that the end of the recording, or the next start of trak probes
** after a crash, puts tracefs back (events off, tracing_on 0, trace_clock and buffer_size_kb
** as found).
*/
#ifndef TRAK_PROBES_TRACEFS_H
#define TRAK_PROBES_TRACEFS_H

#include <stddef.h>
#include <stdint.h>

#include "trak/error.h"

#ifndef TRAK__HIDDEN
#define TRAK__HIDDEN __attribute__((visibility("hidden")))
#endif

/* Finds a writable tracefs (/sys/kernel/tracing, then /sys/kernel/debug/tracing) into
** root[size]. Returns 0, or TRAK_EIO with one line saying what to do (mount it; run as root). */
int trak__tracefs_find(char *root, size_t size, trak_error *err) TRAK__HIDDEN;

/* Reads root/rel into buf[size] (NUL-terminated). Returns the length or -1 (errno set). */
long trak__tracefs_read(const char *root, const char *rel, char *buf, size_t size) TRAK__HIDDEN;
/* Writes `text` to root/rel (truncating). Returns 0 or -1 (errno set). */
int trak__tracefs_write(const char *root, const char *rel, const char *text) TRAK__HIDDEN;

/* The state file: $TRAK_PROBES_STATE, else /run/trak-probes.state (/tmp when /run is not
** writable). */
void trak__tracefs_state_path(char *buf, size_t size) TRAK__HIDDEN;

/* Takes tracefs for this process: locks the tracefs directory (flock, machine-wide: one trak
** probes records at a time whatever its state file), then records the current trace_clock,
** buffer_size_kb and the owner pid in the state file, before anything is changed. Returns 0,
** TRAK_ESTATE when another trak probes holds the lock, a live process (pid in the message)
** the state file, or another tracer the top-level buffer (its tracer is not nop, or tracing is
** on with events set), or TRAK_EIO. trak__tracefs_restore of this process's state drops the
** lock. */
int trak__tracefs_claim(const char *root, trak_error *err) TRAK__HIDDEN;
/* Appends an event ("group/name") the recording is about to enable. Returns 0 or -1. */
int trak__tracefs_note_event(const char *event) TRAK__HIDDEN;

/* Puts tracefs back from the state file and removes it: tracing_on 0, every noted event off,
** the buffer emptied, trace_clock and buffer_size_kb as they were. With `only_dead`, does so
** only when the owner process is gone (returns 0 and does nothing otherwise). Returns 1 when
** something was restored, 0 when there was no state file, -1 when restoring failed. */
int trak__tracefs_restore(int only_dead) TRAK__HIDDEN;

#endif /* TRAK_PROBES_TRACEFS_H */
