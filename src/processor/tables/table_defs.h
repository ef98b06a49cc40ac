/*
** The one definition of every columnar table: its columns in SQL order, each with how it is
** stored, its type, its C field, its SQL name, whether it ascends with the row id and the value a
** new row gets. storage.h turns these lists into the table structs, storage.c into growth,
** new-row defaults and freeing, vtab.c into the SQLite column lists. README.md says how to add a
** column or a table.
*/
#ifndef TRAK_PROCESSOR_TABLE_DEFS_H
#define TRAK_PROCESSOR_TABLE_DEFS_H

#include <stdint.h>

/*
** A column is one line of its table's list:
**
**   X(T, store, type, field, "sql_name", sorted, init)
**
** T      the table (the list passes it through; write T)
** store  S   stored: an array `type field[]` in the table struct, shown to SQL
**        O   stored but optional: the array stays NULL until trak__<table>_optional() adds it
**            (every row `init`); SQL reads NULL while it is absent
**        H   stored, hidden from SQL (importer bookkeeping)
**        A   an alias: SQL shows the stored column `field` under another name
**        V   virtual: no storage (the row id, an always-NULL column, a value computed on read);
**            field and init are unused, write _
**        C   computed on read from other tables through the row's ids, hidden from SELECT *
**            (a denormalised column the stdlib's views read): field names the computation
**            (trak__vt_calc in vtab.c), type is how its value reads; init is unused, write _;
**            computed columns come last in their table's list
** type   ID (the row id)  I64  I64N (INT64_MIN is NULL)  U32  U32N (TRAK_NULL_U32 is NULL)
**        STR (string-pool id, 0 is NULL)  F64  BOOLN (uint8_t, 2 is NULL)  U8, U16, I32 (hidden
**        only: a narrow value a computed column reads)  U64 (hidden only: the args value word)
**        NUL (always NULL)  ARG_* (the args table's typed value columns, read by value_type)
** sorted 1 when values ascend with the row id as the importer appends them (binary search)
** init   what trak__<table>_push() writes into a new row before the appender sets its own
*/

/* The C element type of each column type (storage.h, storage.c). */
#define TRAK_CTYPE_I64 int64_t
#define TRAK_CTYPE_I64N int64_t
#define TRAK_CTYPE_U32 uint32_t
#define TRAK_CTYPE_U32N uint32_t
#define TRAK_CTYPE_STR uint32_t
#define TRAK_CTYPE_F64 double
#define TRAK_CTYPE_BOOLN uint8_t
#define TRAK_CTYPE_U8 uint8_t
#define TRAK_CTYPE_U16 uint16_t /* hidden only */
#define TRAK_CTYPE_I32 int32_t  /* hidden only */
#define TRAK_CTYPE_U64 uint64_t /* hidden only */
#define TRAK_CTYPE_ARG_TYPE uint8_t

#define TRAK_NULL_U32 UINT32_MAX /* "no value" in uint32 id columns (parent_id, arg_set_id) */

/* Every table: its field in trak_tables and its name in SQL, in the order SQL registers them. */
#define TRAK_TABLES(X)                                                                             \
  X(slice, "slice")                                                                                \
  X(track, "__intrinsic_track")                                                                    \
  X(thread, "thread")                                                                              \
  X(process, "process")                                                                            \
  X(counter, "counter")                                                                            \
  X(state, "state")                                                                                \
  X(machine, "machine")                                                                            \
  X(flow, "flow")                                                                                  \
  X(args, "args")                                                                                  \
  X(sched_slice, "__intrinsic_sched_slice")                                                        \
  X(thread_state, "__intrinsic_thread_state")                                                      \
  X(spurious_wakeup, "__intrinsic_spurious_sched_wakeup")                                          \
  X(cpu, "__intrinsic_cpu")                                                                        \
  X(cpu_freq, "__intrinsic_cpu_freq")                                                              \
  X(ftrace_event, "__intrinsic_ftrace_event")                                                      \
  X(interrupt_mapping, "_linux_interrupt_mapping")                                                 \
  X(clock_snapshot, "__intrinsic_clock_snapshot")                                                  \
  X(gpu, "__intrinsic_gpu")                                                                        \
  X(gpu_counter_group, "__intrinsic_gpu_counter_group")                                            \
  X(gpu_context, "__intrinsic_gpu_context")

/* thread_*: from thread-time / instruction-count counter tracks or JSON's tts / tdur. The
** hidden __ columns follow the slice's track to its thread (on a thread track) and process (the
** thread's, or the process track's), as Perfetto's thread_slice and process_slice join them:
** __utid is NULL unless the track is a thread track of an existing thread, __upid unless it is
** a thread track (then the thread's upid) or a process track of an existing process. */
#define TRAK_COLUMNS_slice(X, T)                                                                   \
  X(T, V, ID, _, "id", 1, _)                                                                       \
  X(T, S, I64, ts, "ts", 1, 0)                                                                     \
  X(T, S, I64, dur, "dur", 0, -1)                                                                  \
  X(T, S, U32, track_id, "track_id", 0, 0)                                                         \
  X(T, S, STR, category, "category", 0, 0)                                                         \
  X(T, S, STR, name, "name", 0, 0)                                                                 \
  X(T, S, U32, depth, "depth", 0, 0)                                                               \
  X(T, S, U32N, parent_id, "parent_id", 0, TRAK_NULL_U32)                                          \
  X(T, S, U32N, arg_set_id, "arg_set_id", 0, TRAK_NULL_U32)                                        \
  X(T, O, I64N, thread_ts, "thread_ts", 0, INT64_MIN)                                              \
  X(T, O, I64N, thread_dur, "thread_dur", 0, INT64_MIN)                                            \
  X(T, O, I64N, thread_ic, "thread_instruction_count", 0, INT64_MIN)                               \
  X(T, O, I64N, thread_icd, "thread_instruction_delta", 0, INT64_MIN)                              \
  X(T, A, STR, category, "cat", 0, _)                                                              \
  X(T, V, ID, _, "slice_id", 1, _)                                                                 \
  X(T, C, U32N, slice_utid, "__utid", 0, _)                                                        \
  X(T, C, U32N, slice_upid, "__upid", 0, _)                                                        \
  X(T, C, STR, slice_track_name, "__track_name", 0, _)                                             \
  X(T, C, STR, slice_thread_name, "__thread_name", 0, _)                                           \
  X(T, C, I64, slice_tid, "__tid", 0, _)                                                           \
  X(T, C, BOOLN, slice_is_main_thread, "__is_main_thread", 0, _)                                   \
  X(T, C, STR, slice_process_name, "__process_name", 0, _)                                         \
  X(T, C, I64, slice_pid, "__pid", 0, _)

/* type: Perfetto's finer track type (string id); classification: trak_track_kind's name, what
** the thread_track, process_track, counter_track ... views select on; kind: trak_track_kind;
** dimension_arg_set_id: the args that tell the track from its siblings. */
#define TRAK_COLUMNS_track(X, T)                                                                   \
  X(T, V, ID, _, "id", 1, _)                                                                       \
  X(T, S, STR, name, "name", 0, 0)                                                                 \
  X(T, S, STR, type, "type", 0, 0)                                                                 \
  X(T, S, U32N, dimension_arg_set_id, "dimension_arg_set_id", 0, TRAK_NULL_U32)                    \
  X(T, S, U32N, parent_id, "parent_id", 0, TRAK_NULL_U32)                                          \
  X(T, S, U32N, source_arg_set_id, "source_arg_set_id", 0, TRAK_NULL_U32)                          \
  X(T, S, U32, machine_id, "machine_id", 0, 0)                                                     \
  X(T, S, U32N, track_group_id, "track_group_id", 0, TRAK_NULL_U32)                                \
  X(T, S, U32N, utid, "utid", 0, TRAK_NULL_U32)                                                    \
  X(T, S, U32N, upid, "upid", 0, TRAK_NULL_U32)                                                    \
  X(T, S, STR, unit, "unit", 0, 0)                                                                 \
  X(T, S, STR, description, "description", 0, 0)                                                   \
  X(T, S, STR, classification, "classification", 0, 0)                                             \
  X(T, H, U8, kind, "kind", 0, 0)

/* is_main: 0, 1, or 2 for NULL; machine_id: machine table row, 0 the host. */
#define TRAK_COLUMNS_thread(X, T)                                                                  \
  X(T, V, ID, _, "utid", 1, _)                                                                     \
  X(T, V, ID, _, "id", 1, _)                                                                       \
  X(T, S, I64, tid, "tid", 0, 0)                                                                   \
  X(T, S, STR, name, "name", 0, 0)                                                                 \
  X(T, S, I64N, start_ts, "start_ts", 0, INT64_MIN)                                                \
  X(T, S, I64N, end_ts, "end_ts", 0, INT64_MIN)                                                    \
  X(T, S, U32N, upid, "upid", 0, TRAK_NULL_U32)                                                    \
  X(T, S, BOOLN, is_main, "is_main_thread", 0, 2)                                                  \
  X(T, S, BOOLN, is_idle, "is_idle", 0, 0)                                                         \
  X(T, S, U32, machine_id, "machine_id", 0, 0)                                                     \
  X(T, S, U32N, arg_set_id, "arg_set_id", 0, TRAK_NULL_U32)

/* uid, and Android's app id and user id it implies. */
#define TRAK_COLUMNS_process(X, T)                                                                 \
  X(T, V, ID, _, "upid", 1, _)                                                                     \
  X(T, V, ID, _, "id", 1, _)                                                                       \
  X(T, S, I64, pid, "pid", 0, 0)                                                                   \
  X(T, S, STR, name, "name", 0, 0)                                                                 \
  X(T, S, I64N, start_ts, "start_ts", 0, INT64_MIN)                                                \
  X(T, S, I64N, end_ts, "end_ts", 0, INT64_MIN)                                                    \
  X(T, S, U32N, parent_upid, "parent_upid", 0, TRAK_NULL_U32)                                      \
  X(T, S, I64N, uid, "uid", 0, INT64_MIN)                                                          \
  X(T, S, I64N, android_appid, "android_appid", 0, INT64_MIN)                                      \
  X(T, S, I64N, android_user_id, "android_user_id", 0, INT64_MIN)                                  \
  X(T, S, STR, cmdline, "cmdline", 0, 0)                                                           \
  X(T, S, U32N, arg_set_id, "arg_set_id", 0, TRAK_NULL_U32)                                        \
  X(T, S, U32, machine_id, "machine_id", 0, 0)

#define TRAK_COLUMNS_counter(X, T)                                                                 \
  X(T, V, ID, _, "id", 1, _)                                                                       \
  X(T, S, I64, ts, "ts", 1, 0)                                                                     \
  X(T, S, U32, track_id, "track_id", 0, 0)                                                         \
  X(T, S, F64, value, "value", 0, 0)                                                               \
  X(T, S, U32N, arg_set_id, "arg_set_id", 0, TRAK_NULL_U32)

/* Perfetto's state table: intervals of a state track's named states (TYPE_STATE events); dur
** is -1 while the state is current at the end of the trace. */
#define TRAK_COLUMNS_state(X, T)                                                                   \
  X(T, V, ID, _, "id", 1, _)                                                                       \
  X(T, S, I64, ts, "ts", 1, 0)                                                                     \
  X(T, S, I64, dur, "dur", 0, -1)                                                                  \
  X(T, S, U32, track_id, "track_id", 0, 0)                                                         \
  X(T, S, STR, category, "category", 0, 0)                                                         \
  X(T, S, STR, value, "value", 0, 0)                                                               \
  X(T, S, U32N, arg_set_id, "arg_set_id", 0, TRAK_NULL_U32)

/* Perfetto's machine table: row 0 is the host (the machine of packets without machine_id), then
** one row per other TracePacket.machine_id in order of first appearance. raw_id: that id (the
** host's is 0 unless the first packet had one); label_index: the UI's machine number. The rest
** comes from the machine's SystemInfo packets. */
#define TRAK_COLUMNS_machine(X, T)                                                                 \
  X(T, V, ID, _, "id", 1, _)                                                                       \
  X(T, S, I64, raw_id, "raw_id", 0, 0)                                                             \
  X(T, S, STR, name, "name", 0, 0)                                                                 \
  X(T, S, STR, sysname, "sysname", 0, 0)                                                           \
  X(T, S, STR, release, "release", 0, 0)                                                           \
  X(T, S, STR, version, "version", 0, 0)                                                           \
  X(T, S, STR, arch, "arch", 0, 0)                                                                 \
  X(T, S, I64N, num_cpus, "num_cpus", 0, INT64_MIN)                                                \
  X(T, S, STR, fingerprint, "android_build_fingerprint", 0, 0)                                     \
  X(T, S, STR, manufacturer, "android_device_manufacturer", 0, 0)                                  \
  X(T, S, I64N, sdk_version, "android_sdk_version", 0, INT64_MIN)                                  \
  X(T, S, I64N, ram_bytes, "system_ram_bytes", 0, INT64_MIN)                                       \
  X(T, S, I64N, ram_gb, "system_ram_gb", 0, INT64_MIN)                                             \
  X(T, S, I64, label_index, "label_index", 0, 0)

/* trace_id: the flow's id in the trace. */
#define TRAK_COLUMNS_flow(X, T)                                                                    \
  X(T, V, ID, _, "id", 1, _)                                                                       \
  X(T, S, U32, slice_out, "slice_out", 0, 0)                                                       \
  X(T, S, U32, slice_in, "slice_in", 0, 0)                                                         \
  X(T, S, I64N, trace_id, "trace_id", 0, INT64_MIN)                                                \
  X(T, S, U32N, arg_set_id, "arg_set_id", 0, TRAK_NULL_U32)

/* Rows of one arg set are contiguous; arg_set_id is the id of the set's first row, as in
** Perfetto, so the column is sorted and a set is found by binary search. value_type is a
** trak_arg_type; a row's one value is the hidden word `value` (an integer, a real's bits or a
** string id: tables/arg_value.h), which SQL reads as int_value, string_value or real_value by
** value_type, the other two NULL. */
#define TRAK_COLUMNS_args(X, T)                                                                    \
  X(T, V, ID, _, "id", 1, _)                                                                       \
  X(T, S, U32, arg_set_id, "arg_set_id", 1, 0)                                                     \
  X(T, S, STR, flat_key, "flat_key", 0, 0)                                                         \
  X(T, S, STR, key, "key", 0, 0)                                                                   \
  X(T, H, U64, value, "value", 0, 0)                                                               \
  X(T, V, ARG_INT, _, "int_value", 0, _)                                                           \
  X(T, V, ARG_STR, _, "string_value", 0, _)                                                        \
  X(T, V, ARG_REAL, _, "real_value", 0, _)                                                         \
  X(T, S, ARG_TYPE, value_type, "value_type", 0, 0)                                                \
  X(T, V, ARG_DISPLAY, _, "display_value", 0, _)

/* Perfetto's scheduling tables (import/ftrace/), which the prelude's views sched, sched_slice,
** thread_state, spurious_sched_wakeup, cpu, ftrace_event and raw show. A sched slice is one
** thread's time on one CPU: dur -1 while it runs at the end of the trace; end_state the letters
** of its sched_switch's prev_state (NULL: still running, or an invalid state). ucpu: the cpu
** table's row of its CPU (the CPU number on the host). end_state, ucpu and priority (a 32-bit
** value of the event) have few distinct values: each is stored as a one-byte code of a
** trak_dict8 (t->dict, storage.h) and read as computed (sched_cols.h). */
#define TRAK_COLUMNS_sched_slice(X, T)                                                             \
  X(T, V, ID, _, "id", 1, _)                                                                       \
  X(T, S, I64, ts, "ts", 1, 0)                                                                     \
  X(T, S, I64, dur, "dur", 0, -1)                                                                  \
  X(T, S, U32, utid, "utid", 0, 0)                                                                 \
  X(T, H, U8, end_state8, "end_state8", 0, 0)                                                      \
  X(T, H, U8, ucpu8, "ucpu8", 0, 0)                                                                \
  X(T, H, U8, priority8, "priority8", 0, 0)                                                        \
  X(T, C, STR, ss_end_state, "end_state", 0, _)                                                    \
  X(T, C, U32, ss_ucpu, "ucpu", 0, _)                                                              \
  X(T, C, I64, ss_priority, "priority", 0, _)

/* A thread's state from ts for dur (-1: still in it at the end): "Running" (ucpu set), "R",
** "R+", or the letters of a blocked state. io_wait and irq_context are 0, 1 or NULL (2);
** waker_utid: the thread whose wakeup made it runnable; waker_id: the waker's Running row.
** A row has at most one of ucpu, a waker and a blocked_function (the importer's three shapes:
** Running, woken, blocked), so they share one stored column, `aux`, which `bits` says how to
** read, and dur is 32 bits unless it does not fit (thread_state_cols.h); state is a one-byte
** code of t->dict.ts_state (storage.h's trak_dict8): 22 bytes a row instead of 42. */
#define TRAK_COLUMNS_thread_state(X, T)                                                            \
  X(T, V, ID, _, "id", 1, _)                                                                       \
  X(T, S, I64, ts, "ts", 1, 0)                                                                     \
  X(T, S, U32, utid, "utid", 0, 0)                                                                 \
  X(T, H, U8, state8, "state8", 0, 0)                                                              \
  X(T, H, U32, dur32, "dur32", 0, UINT32_MAX)                                                      \
  X(T, H, U32, aux, "aux", 0, 0)                                                                   \
  X(T, H, U8, bits, "bits", 0, TRAK_TS_BITS_INIT)                                                  \
  X(T, C, I64, ts_dur, "dur", 0, _)                                                                \
  X(T, C, BOOLN, ts_io_wait, "io_wait", 0, _)                                                      \
  X(T, C, STR, ts_blocked_function, "blocked_function", 0, _)                                      \
  X(T, C, U32N, ts_waker_utid, "waker_utid", 0, _)                                                 \
  X(T, C, U32N, ts_waker_id, "waker_id", 0, _)                                                     \
  X(T, C, BOOLN, ts_irq_context, "irq_context", 0, _)                                              \
  X(T, C, U32N, ts_ucpu, "ucpu", 0, _)                                                             \
  X(T, C, STR, ts_state, "state", 0, _)

/* thread_state.bits: io_wait (bits 0-1), irq_context (2-3), each 0, 1 or 2 for NULL, and what
** aux holds (4-6, trak_ts_aux in thread_state_cols.h). A new row: both NULL, aux nothing. */
#define TRAK_TS_BITS_INIT (2u | 2u << 2)

/* A wakeup of a thread already runnable or running: its current state's row. */
#define TRAK_COLUMNS_spurious_wakeup(X, T)                                                         \
  X(T, V, ID, _, "id", 1, _)                                                                       \
  X(T, S, I64, ts, "ts", 1, 0)                                                                     \
  X(T, S, U32, thread_state_id, "thread_state_id", 0, 0)                                           \
  X(T, S, BOOLN, irq_context, "irq_context", 0, 2)                                                 \
  X(T, S, U32, utid, "utid", 0, 0)                                                                 \
  X(T, S, U32, waker_utid, "waker_utid", 0, 0)

/* One row per (machine, CPU number): the row id is the ucpu (machine row * 4096 + CPU, as in
** Perfetto); cpu is NULL for the rows of CPUs no event was seen on (the view hides them). */
#define TRAK_COLUMNS_cpu(X, T)                                                                     \
  X(T, V, ID, _, "id", 1, _)                                                                       \
  X(T, S, U32N, cpu, "cpu", 0, TRAK_NULL_U32)                                                      \
  X(T, S, U32, cluster_id, "cluster_id", 0, 0)                                                     \
  X(T, S, STR, processor, "processor", 0, 0)                                                       \
  X(T, S, U32, machine_id, "machine_id", 0, 0)                                                     \
  X(T, S, U32N, capacity, "capacity", 0, TRAK_NULL_U32)                                            \
  X(T, S, U32N, arg_set_id, "arg_set_id", 0, TRAK_NULL_U32)

/* The frequencies (kHz) a CPU can run at, as a CpuInfo packet lists them: a row per CPU and
** frequency, in the packet's order (the cpu_available_frequencies view). */
#define TRAK_COLUMNS_cpu_freq(X, T)                                                                \
  X(T, V, ID, _, "id", 1, _)                                                                       \
  X(T, S, U32, ucpu, "ucpu", 0, 0)                                                                 \
  X(T, S, U32, freq, "freq", 0, 0)

/* Every ftrace event as recorded (Perfetto's raw table): its name, thread, CPU, flags, args.
** name, ucpu and common_flags (16 bits, as the sink records them) have few distinct values:
** each is stored as a one-byte code of a trak_dict8 (t->dict, storage.h), read as computed
** (sched_cols.h). */
#define TRAK_COLUMNS_ftrace_event(X, T)                                                            \
  X(T, V, ID, _, "id", 1, _)                                                                       \
  X(T, S, I64, ts, "ts", 1, 0)                                                                     \
  X(T, H, U8, name8, "name8", 0, 0)                                                                \
  X(T, S, U32, utid, "utid", 0, 0)                                                                 \
  X(T, S, U32N, arg_set_id, "arg_set_id", 0, TRAK_NULL_U32)                                        \
  X(T, H, U8, ucpu8, "ucpu8", 0, 0)                                                                \
  X(T, H, U8, flags8, "flags8", 0, 0)                                                              \
  X(T, C, STR, fe_name, "name", 0, _)                                                              \
  X(T, C, U32, fe_ucpu, "ucpu", 0, _)                                                              \
  X(T, C, U32, fe_common_flags, "common_flags", 0, _)

/* IRQ numbers and their names (InterruptInfo packets), one row per machine and number: the
** first name given wins. */
#define TRAK_COLUMNS_interrupt_mapping(X, T)                                                       \
  X(T, V, ID, _, "id", 1, _)                                                                       \
  X(T, S, U32, irq_id, "irq_id", 0, 0)                                                             \
  X(T, S, STR, name, "name", 0, 0)                                                                 \
  X(T, S, U32, machine_id, "machine_id", 0, 0)

/* Perfetto's clock_snapshot: one row per clock of each clock snapshot (a ClockSnapshot packet,
** or the zero-offset bridge Perfetto adds between BOOTTIME and its trace-file clock), in the
** order they were added. ts: the snapshot's instant in trace time; clock_id: the id in the
** trace (a sequence-scoped one without its sequence); clock_name: a builtin clock's name, NULL
** for others; clock_value: the clock's value in ns (timestamp times unit_multiplier_ns);
** snapshot_id: Perfetto's count of snapshots, from 0. */
#define TRAK_COLUMNS_clock_snapshot(X, T)                                                          \
  X(T, V, ID, _, "id", 1, _)                                                                       \
  X(T, S, I64, ts, "ts", 0, 0)                                                                     \
  X(T, S, I64, clock_id, "clock_id", 0, 0)                                                         \
  X(T, S, STR, clock_name, "clock_name", 0, 0)                                                     \
  X(T, S, I64, clock_value, "clock_value", 0, 0)                                                   \
  X(T, S, U32, snapshot_id, "snapshot_id", 0, 0)                                                   \
  X(T, S, U32, machine_id, "machine_id", 0, 0)

/* A GPU of a machine, as its first mention makes it (import/proto/gpu.c): a GpuInfo packet's
** entry (by index) or a GPU counter's or frequency's gpu id; the id is the ugpu. */
#define TRAK_COLUMNS_gpu(X, T)                                                                     \
  X(T, V, ID, _, "id", 1, _)                                                                       \
  X(T, S, U32N, gpu, "gpu", 0, TRAK_NULL_U32)                                                      \
  X(T, S, STR, name, "name", 0, 0)                                                                 \
  X(T, S, STR, vendor, "vendor", 0, 0)                                                             \
  X(T, S, STR, model, "model", 0, 0)                                                               \
  X(T, S, STR, architecture, "architecture", 0, 0)                                                 \
  X(T, S, STR, uuid, "uuid", 0, 0)                                                                 \
  X(T, S, STR, pci_bdf, "pci_bdf", 0, 0)                                                           \
  X(T, S, U32, machine_id, "machine_id", 0, 0)                                                     \
  X(T, S, U32N, arg_set_id, "arg_set_id", 0, TRAK_NULL_U32)

/* A GPU counter's membership of a group (import/proto/gpu.c): a row per group its spec lists
** (group 0 when none), then per custom group naming it; name and description are the custom
** group's. track_id is the counter's gpu_counter track. */
#define TRAK_COLUMNS_gpu_counter_group(X, T)                                                       \
  X(T, V, ID, _, "id", 1, _)                                                                       \
  X(T, S, I64, group_id, "group_id", 0, 0)                                                         \
  X(T, S, U32, track_id, "track_id", 0, 0)                                                         \
  X(T, S, STR, name, "name", 0, 0)                                                                 \
  X(T, S, STR, description, "description", 0, 0)

/* A graphics context a GPU render stage names (import/proto/gpu_stages.c), once per context
** id: its process id and API (OPEN_GL, VULKAN, OPEN_CL, CUDA, HIP or UNDEFINED). */
#define TRAK_COLUMNS_gpu_context(X, T)                                                             \
  X(T, V, ID, _, "id", 1, _)                                                                       \
  X(T, S, I64, context_id, "context_id", 0, 0)                                                     \
  X(T, S, I64N, pid, "pid", 0, INT64_MIN)                                                          \
  X(T, S, STR, api, "api", 0, 0)

#endif /* TRAK_PROCESSOR_TABLE_DEFS_H */
