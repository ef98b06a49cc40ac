/*
** This file holds the rare TracePacket fields: the dispatch of each rare payload to the file
** that decodes it (system info, ftrace bundles, process trees, power, GPU, ...), and the
** second reading of a packet's fields that the common decoding switch leaves (machine_id, the
** rare fields past 127, fields trak's schema lacks).
*/
#include <stdint.h>

#include "processor/import/ftrace/ftrace.h"
#include "processor/import/proto/packet.h"

/* The rare fields: META_FIELDS, and those past 127 trak__packet_unhandled_fields finds. */
void trak__rare_packet(trak_importer *imp, const trak_packet_ctx *ctx, uint32_t field,
                       const uint8_t *data, size_t len) {
  trak_packet_state *s = trak__packet_state(imp);
  trak__meta_machine(imp, imp->threads.machine);
  if (ctx->has_ts) s->last_ts = ctx->ts;
  switch (field) {
  case TRAK_PB_TracePacket_trace_uuid:
    trak__trace_uuid_packet(imp, data, len);
    return;
  case TRAK_PB_TracePacket_system_info:
    trak__system_info_packet(imp, data, len);
    return;
  case TRAK_PB_TracePacket_cpu_info:
    trak__cpu_info_packet(imp, data, len);
    return;
  case TRAK_PB_TracePacket_service_event:
    trak__service_event_packet(imp, ctx->has_ts ? ctx->ts : 0, data, len);
    return;
  case TRAK_PB_TracePacket_chrome_metadata:
    trak__chrome_metadata(imp, s->chrome_count++, data, len);
    return;
  case TRAK_PB_TracePacket_trace_attributes:
    trak__trace_attributes_packet(imp, data, len);
    return;
  case TRAK_PB_TracePacket_track_event_range_of_interest:
    trak__range_of_interest_packet(imp, data, len);
    return;
  case TRAK_PB_TracePacket_process_tree:
    trak__process_tree(imp, ctx, data, len);
    return;
  case TRAK_PB_TracePacket_profile_packet:
    trak__profile_packet(imp, ctx, data, len);
    return;
  case TRAK_PB_TracePacket_deobfuscation_mapping:
    trak__deobfuscation_packet(imp, data, len);
    return;
  case TRAK_PB_TracePacket_streaming_profile_packet:
    trak__streaming_profile_packet(imp, ctx->seq, data, len);
    return;
  case TRAK_PB_TracePacket_perf_sample:
    trak__perf_sample_packet(imp, (trak_packet_ctx *)ctx, data, len);
    return;
  case TRAK_PB_TracePacket_ftrace_events:
    trak__ftrace_bundle_header(imp, ctx, data, len);
    trak__ftrace_bundle(imp, ctx->seq, data, len);
    return;
  case TRAK_PB_TracePacket_ftrace_stats:
    trak__ftrace_stats_packet(imp, ctx->seq ? ctx->seq->id : 0, data, len);
    return;
  case TRAK_PB_TracePacket_interrupt_info:
    trak__interrupt_info_packet(imp, data, len);
    return;
  case TRAK_PB_TracePacket_sys_stats:
    if (ctx->has_ts) trak__sys_stats_packet(imp, (trak_packet_ctx *)ctx, data, len);
    return;
  case TRAK_PB_TracePacket_battery:
  case TRAK_PB_TracePacket_initial_display_state:
    if (!ctx->has_ts)
      trak__report(imp, TRAK_STAT_PACKET_MALFORMED, "power packet without a timestamp");
    else if (field == TRAK_PB_TracePacket_battery)
      trak__battery_packet(imp, (trak_packet_ctx *)ctx, data, len);
    else
      trak__initial_display_state_packet(imp, (trak_packet_ctx *)ctx, data, len);
    return;
  case TRAK_PB_TracePacket_remote_clock_sync:
    trak__remote_clock_sync_add(imp, data, len);
    return;
  case TRAK_PB_TracePacket_power_rails:
    trak__power_rails_packet(imp, (trak_packet_ctx *)ctx, data, len);
    return;
  case TRAK_PB_TracePacket_android_energy_estimation_breakdown:
    trak__energy_breakdown_packet(imp, (trak_packet_ctx *)ctx, data, len);
    return;
  case TRAK_PB_TracePacket_entity_state_residency:
    trak__entity_state_packet(imp, (trak_packet_ctx *)ctx, data, len);
    return;
  case TRAK_PB_TracePacket_android_system_property:
    trak__system_property_packet(imp, (trak_packet_ctx *)ctx, data, len);
    return;
  case TRAK_PB_TracePacket_packages_list:
    trak__packages_list_packet(imp, data, len);
    return;
  case TRAK_PB_TracePacket_journald_event:
    trak__journald_packet(imp, ctx, data, len);
    return;
  case TRAK_PB_TracePacket_concurrent_session_event:
    trak__concurrent_session_event(imp, ctx, data, len);
    return;
  case TRAK_PB_TracePacket_generic_kernel_task_state_event:
  case TRAK_PB_TracePacket_generic_kernel_cpu_freq_event:
  case TRAK_PB_TracePacket_generic_kernel_task_rename_event:
  case TRAK_PB_TracePacket_generic_kernel_process_tree:
    trak__generic_kernel_packet(imp, ctx, field, data, len);
    return;
  case TRAK_PB_TracePacket_gpu_counter_event:
  case TRAK_PB_TracePacket_gpu_render_stage_event:
  case TRAK_PB_TracePacket_gpu_info:
  case TRAK_PB_TracePacket_generic_gpu_frequency_event:
    trak__gpu_packet(imp, ctx, field, data, len);
    return;
  case TRAK_PB_TracePacket_vulkan_api_event:
  case TRAK_PB_TracePacket_gpu_log:
  case TRAK_PB_TracePacket_gpu_mem_total_event:
    trak__gpu_api_packet(imp, ctx, field, data, len);
    return;
  case TRAK_PB_TracePacket_graphics_frame_event:
    trak__graphics_frame_packet(imp, ctx, data, len);
    return;
  case TRAK_PB_TracePacket_frame_timeline_event:
    trak__frame_timeline_packet(imp, ctx, data, len);
    return;
  default: /* trace_config, triggers, chrome_events */
    trak__late_packet_keep(imp, ctx, field, data, len);
    return;
  }
}

/* The fields of a packet that the common decoding switch leaves (read again here, out of the
** common path): machine_id makes its machine current, concurrent_session_event,
** interrupt_info and journald_event are kept for trak__rare_packet, and fields trak's schema lacks
** count in proto_unknown_field. Also run for a packet without machine_id after one with: the
** host is current again. */
void trak__packet_unhandled_fields(trak_importer *imp, const uint8_t *data, size_t len,
                                   packet_fields *pf) {
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init(imp, &dec, data, len);
  int has_machine = 0;
  uint64_t machine = 0;
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number == TRAK_PB_TracePacket_machine_id && f.wire_type == TRAK_PB_WIRE_VARINT)
      has_machine = 1, machine = f.value;
    else if ((f.number == TRAK_PB_TracePacket_concurrent_session_event ||
              f.number == TRAK_PB_TracePacket_interrupt_info ||
              f.number == TRAK_PB_TracePacket_journald_event ||
              f.number == TRAK_PB_TracePacket_gpu_info ||
              f.number == TRAK_PB_TracePacket_generic_gpu_frequency_event) &&
             f.wire_type == TRAK_PB_WIRE_LEN) /* trak__rare_packet's, past the bit set's 128 */
      set_span(pf, P_META, &f), pf->meta_field = f.number;
    else if (trak__schema_lacks("TracePacket", f.number))
      imp->stats[TRAK_STAT_PROTO_UNKNOWN_FIELD]++;
  }
  if (has_machine || imp->threads.machine) trak__machine_switch(imp, has_machine, machine);
}
