/*
** The interface between the files that tokenize a TracePacket: packet.c (the common path:
** reading the packet's fields, its sequence flags, its timestamp and payload, the packets kept
** until their clock is known), packet_sequence.c (what a packet sets in its sequence's state,
** and the packets a sequence cannot take), packet_rare.c (the rare payloads, and the fields
** the common decoding leaves) and compressed_packets.c (compressed_packets, inflated and
** tokenized in order). The folder's entry points are proto.h's; this header is for these four
** files only.
*/
#ifndef TRAK_PROTO_PACKET_H
#define TRAK_PROTO_PACKET_H

#include <stddef.h>
#include <stdint.h>

#include "processor/import/proto/proto.h"

/* The sub-messages of a packet that trak__packet_body reads: indexes into packet_fields.span. */
enum packet_span {
  P_TRACK_EVENT,
  P_INTERNED,
  P_DEFAULTS,
  P_DESCRIPTOR,
  P_SNAPSHOT,
  P_THREAD,
  P_COMPRESSED,
  P_TRACE_STATS,
  P_PROCESS_STATS,
  P_META, /* a rare payload (trak__rare_packet); meta_field says which */
  P_COUNT
};

typedef trak_packet_fields packet_fields;
_Static_assert(P_COUNT == TRAK_PACKET_SPANS, "proto.h sizes trak_packet_fields.span");

#define HAS(pf, p) ((pf)->present & 1u << (p))

static inline void set_span(packet_fields *pf, enum packet_span p, const trak_pb_field *f) {
  pf->span[p] = (trak_span){f->data, f->len};
  pf->present |= 1u << p;
}

/* ---- packet.c ------------------------------------------------------------------------------ */

/* Decodes the fields of the packet [data, data + len) into `pf` (which it fills whole) and
** applies what decoding meets in the import's state: a malformed packet is reported (the
** fields before the error kept), machine_id and the fields the common switch leaves are read
** (trak__packet_unhandled_fields). Reads ahead up to imp->limit. Can't fail. */
void trak__packet_decode_in(trak_importer *imp, const uint8_t *data, size_t len,
                            trak_packet_fields *pf);
/* Everything of decoded packet `pf` but its compressed_packets, which the caller has handled:
** its sequence's flags and state, then its timestamped payload (or the packet is kept until
** its clock is known). Can't fail: problems are counted. */
void trak__packet_body(trak_importer *imp, const trak_packet_fields *pf);

/* ---- packet_sequence.c --------------------------------------------------------------------- */

/* The sub-messages of a packet that set its sequence's or the import's state, before its
** payload: defaults, interned data, a clock snapshot, trace stats, a legacy thread
** descriptor (packet.c tests them together, as they are rare). */
#define STATE_SPANS                                                                                \
  (1u << P_DEFAULTS | 1u << P_INTERNED | 1u << P_SNAPSHOT | 1u << P_TRACE_STATS | 1u << P_THREAD)
/* Applies the STATE_SPANS sub-messages of `pf` to `seq` and the import, in that order (a
** thread_descriptor on a sequence without valid incremental state is reported and skipped, as
** Perfetto skips it). Can't fail: problems are counted. */
void trak__packet_sequence_state(trak_importer *imp, trak_sequence *seq,
                                 const trak_packet_fields *pf);
/* A packet needing incremental state its sequence lacks: counts it on `seq`, reports it and
** logs it with its packet_sequence_id, as Perfetto's reader does. The caller skips it. */
__attribute__((cold)) void trak__packet_skipped_needing_state(trak_importer *imp,
                                                              trak_sequence *seq);
/* A track event in a packet without a trusted_packet_sequence_id: reported and logged with the
** byte offset of its packet's payload, as Perfetto's tokenizer does. The caller drops it. */
void trak__packet_missing_sequence_id(trak_importer *imp);

/* ---- packet_rare.c ------------------------------------------------------------------------- */

/* The TracePacket fields below 128 that trak__rare_packet dispatches, as a bit set (and
** concurrent_session_event, 134, interrupt_info, 130, and journald_event, 132, which
** trak__packet_unhandled_fields finds). */
#define META_BIT(n) (1ull << ((n)&63))
#define META_WORD(w, n) ((n) >> 6 == (w) ? META_BIT(n) : 0)
#define META_FIELDS(w)                                                                             \
  (META_WORD(w, TRAK_PB_TracePacket_trace_config) | META_WORD(w, TRAK_PB_TracePacket_trace_uuid) | \
   META_WORD(w, TRAK_PB_TracePacket_system_info) | META_WORD(w, TRAK_PB_TracePacket_cpu_info) |    \
   META_WORD(w, TRAK_PB_TracePacket_service_event) | META_WORD(w, TRAK_PB_TracePacket_trigger) |   \
   META_WORD(w, TRAK_PB_TracePacket_clone_snapshot_trigger) |                                      \
   META_WORD(w, TRAK_PB_TracePacket_chrome_trigger) |                                              \
   META_WORD(w, TRAK_PB_TracePacket_chrome_metadata) |                                             \
   META_WORD(w, TRAK_PB_TracePacket_chrome_events) |                                               \
   META_WORD(w, TRAK_PB_TracePacket_trace_attributes) |                                            \
   META_WORD(w, TRAK_PB_TracePacket_track_event_range_of_interest) |                               \
   META_WORD(w, TRAK_PB_TracePacket_ftrace_events) |                                               \
   META_WORD(w, TRAK_PB_TracePacket_ftrace_stats) |                                                \
   META_WORD(w, TRAK_PB_TracePacket_process_tree) | META_WORD(w, TRAK_PB_TracePacket_sys_stats) |  \
   META_WORD(w, TRAK_PB_TracePacket_generic_kernel_task_state_event) |                             \
   META_WORD(w, TRAK_PB_TracePacket_generic_kernel_cpu_freq_event) |                               \
   META_WORD(w, TRAK_PB_TracePacket_generic_kernel_task_rename_event) |                            \
   META_WORD(w, TRAK_PB_TracePacket_generic_kernel_process_tree) |                                 \
   META_WORD(w, TRAK_PB_TracePacket_battery) |                                                     \
   META_WORD(w, TRAK_PB_TracePacket_streaming_profile_packet) |                                    \
   META_WORD(w, TRAK_PB_TracePacket_profile_packet) |                                              \
   META_WORD(w, TRAK_PB_TracePacket_deobfuscation_mapping) |                                       \
   META_WORD(w, TRAK_PB_TracePacket_perf_sample) | META_WORD(w, TRAK_PB_TracePacket_power_rails) | \
   META_WORD(w, TRAK_PB_TracePacket_android_energy_estimation_breakdown) |                         \
   META_WORD(w, TRAK_PB_TracePacket_entity_state_residency) |                                      \
   META_WORD(w, TRAK_PB_TracePacket_android_system_property) |                                     \
   META_WORD(w, TRAK_PB_TracePacket_initial_display_state) |                                       \
   META_WORD(w, TRAK_PB_TracePacket_packages_list) |                                               \
   META_WORD(w, TRAK_PB_TracePacket_gpu_counter_event) |                                           \
   META_WORD(w, TRAK_PB_TracePacket_gpu_render_stage_event) |                                      \
   META_WORD(w, TRAK_PB_TracePacket_vulkan_api_event) |                                            \
   META_WORD(w, TRAK_PB_TracePacket_gpu_log) |                                                     \
   META_WORD(w, TRAK_PB_TracePacket_gpu_mem_total_event) |                                         \
   META_WORD(w, TRAK_PB_TracePacket_graphics_frame_event) |                                        \
   META_WORD(w, TRAK_PB_TracePacket_frame_timeline_event) |                                        \
   META_WORD(w, TRAK_PB_TracePacket_remote_clock_sync))

/* Decodes the rare TracePacket field `field` (its payload [data, data + len)) with `ctx`'s
** sequence and trace time, by the file that owns it; those Perfetto reads after sorting are
** kept until trak__proto_finish. Can't fail: problems are counted. */
__attribute__((cold)) void trak__rare_packet(trak_importer *imp, const trak_packet_ctx *ctx,
                                             uint32_t field, const uint8_t *data, size_t len);
/* Reads again the fields of packet [data, data + len) that the common decoding switch leaves
** (pf->unhandled), or makes the host current again after a packet with machine_id: sets
** pf's rare span past field 127, switches the machine, counts fields the schema lacks. */
__attribute__((cold)) void trak__packet_unhandled_fields(trak_importer *imp, const uint8_t *data,
                                                         size_t len, trak_packet_fields *pf);

/* ---- compressed_packets.c ------------------------------------------------------------------ */

/* Tokenizes the packets inside `top`'s compressed_packets (P_COMPRESSED present), and theirs,
** in order, then the rest of `top`. Leaves imp->base and imp->limit as it found them. Can't
** fail: what does not inflate or decode is reported and skipped. */
void trak__compressed_packets(trak_importer *imp, const trak_packet_fields *top);

#endif
