/*
** This file reads a GPU's API calls, log and memory totals as Perfetto's GPU event parser reads
** them: VulkanApiEvent (a Vulkan object's debug name, for the render stages that name it; a
** vkQueueSubmit call, a slice of its duration on the global "Vulkan Events" track), GpuLog (an
** instant named by the line's severity on "GPU Log", its tag and message as args) and
** GpuMemTotalEvent (a value of "GPU Memory": the GPU's total, or a process's).
*/
#include <stdio.h>
#include <string.h>

#include "processor/import/ftrace/ftrace.h"
#include "processor/import/proto/proto.h"
#include "processor/import/tracks.h"
#include "processor/tables/arg_value.h"

/* A string id of [s, s + n) (0 for an empty string, Perfetto's null). */
static uint32_t str(trak_importer *imp, const void *s, size_t n) {
  return n ? trak__strpool_intern(&imp->tables->strings, (const char *)s, n) : 0;
}

/* An arg row of `type` under flat key `flat` and key `key` (string ids); returns its row. */
static uint32_t arg(trak_importer *imp, uint32_t set, uint32_t flat, uint32_t key,
                    trak_arg_type type) {
  return trak__arg_add(imp->tables, set, flat, key, type); /* may move the columns */
}
static void arg_int(trak_importer *imp, uint32_t set, const char *key, trak_arg_type type,
                    int64_t value) {
  uint32_t k = str(imp, key, strlen(key));
  uint32_t row = arg(imp, set, k, k, type);
  trak__arg_set_int(imp->tables, row, value);
}
static void arg_str(trak_importer *imp, uint32_t set, const char *key, uint32_t value) {
  uint32_t k = str(imp, key, strlen(key));
  uint32_t row = arg(imp, set, k, k, TRAK_ARG_STRING);
  trak__arg_set_str(imp->tables, row, value);
}

/* The set begun at `set`, shared and placed in Perfetto's order of sets. */
static uint32_t args_close(trak_importer *imp, uint32_t set) {
  set = trak__args_share(imp, set);
  if (set != TRAK_NULL_U32) trak__arg_order_log(imp, TRAK_ARG_ORDER_SET, set);
  return set;
}

/* The global slice track of `kind` named `name`, made on first use. */
static uint32_t global_track(trak_importer *imp, trak_track_kind_id kind, const char *name) {
  return trak__keyed_track(imp, trak__track_key(kind, 0, 0), str(imp, name, strlen(name)),
                           TRAK_NULL_U32, 0, kind);
}

/* A slice of `dur` (0: an instant) at the packet's time on `track`, named `name`. */
static void slice(trak_importer *imp, const trak_packet_ctx *ctx, uint32_t track, uint32_t name,
                  int64_t dur, uint32_t set) {
  trak_packet_ctx timed = trak__packet_ctx_timed(imp, ctx);
  uint32_t aux = (uint32_t)imp->aux.n;
  trak_vec_push(imp->aux, (uint64_t)dur);
  trak_vec_push(imp->aux, 0);
  trak_ev ev = {timed.ts, (uint32_t)TRAK_EV_COMPLETE << TRAK_EV_TYPE_SHIFT | track,
                (uint32_t)imp->packet_index, {{name, 0}}, set, aux};
  trak__sequence_push(imp, ctx->seq, &ev);
}

/* A VkQueueSubmit: its slice on "Vulkan Events". */
static void queue_submit(trak_importer *imp, const trak_packet_ctx *ctx, const uint8_t *data,
                         size_t len) {
  uint64_t dur = 0, pid = 0, tid = 0, submission = 0;
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.wire_type != TRAK_PB_WIRE_VARINT) continue;
    if (f.number == TRAK_PB_VulkanApiEvent_VkQueueSubmit_duration_ns) dur = f.value;
    if (f.number == TRAK_PB_VulkanApiEvent_VkQueueSubmit_pid) pid = (uint32_t)f.value;
    if (f.number == TRAK_PB_VulkanApiEvent_VkQueueSubmit_tid) tid = (uint32_t)f.value;
    if (f.number == TRAK_PB_VulkanApiEvent_VkQueueSubmit_submission_id)
      submission = (uint32_t)f.value;
  }
  uint32_t set = (uint32_t)imp->tables->args.n;
  arg_int(imp, set, "pid", TRAK_ARG_INT, (int64_t)pid);
  arg_int(imp, set, "tid", TRAK_ARG_INT, (int64_t)tid);
  uint32_t n = 0, flat = str(imp, "command_buffers", 15);
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) { /* the buffers, packed or not */
    if (f.number != TRAK_PB_VulkanApiEvent_VkQueueSubmit_vk_command_buffers) continue;
    trak_pb_packed packed;
    uint64_t v = f.value;
    int is_packed = f.wire_type == TRAK_PB_WIRE_LEN;
    if (!is_packed && f.wire_type != TRAK_PB_WIRE_VARINT) continue;
    if (is_packed) trak_pb_packed_init(&packed, &f, TRAK_PB_WIRE_VARINT);
    while (!is_packed || trak_pb_packed_next(&packed, &v) == 1) {
      if (n == 0) arg_int(imp, set, "command_buffer", TRAK_ARG_UINT, (int64_t)v);
      char key[48];
      int k = snprintf(key, sizeof key, "command_buffers[%u]", n++);
      uint32_t row = arg(imp, set, flat, str(imp, key, (size_t)k), TRAK_ARG_UINT);
      trak__arg_set_int(imp->tables, row, (int64_t)v);
      if (!is_packed) break;
    }
  }
  arg_int(imp, set, "submission_id", TRAK_ARG_INT, (int64_t)submission);
  set = args_close(imp, set);
  slice(imp, ctx, global_track(imp, TRAK_TK_VULKAN_EVENTS, "Vulkan Events"),
        str(imp, "vkQueueSubmit", 13), (int64_t)dur, set);
}

static void vulkan_api_event(trak_importer *imp, const trak_packet_ctx *ctx, const uint8_t *data,
                             size_t len) {
  trak_pb_decoder dec, sub;
  trak_pb_field f, g;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.wire_type != TRAK_PB_WIRE_LEN) continue;
    if (f.number == TRAK_PB_VulkanApiEvent_vk_debug_utils_object_name) {
      int32_t type = 0;
      uint64_t object = 0;
      uint32_t name = 0;
      trak__dec_init(imp, &sub, f.data, f.len);
      while (trak_pb_decoder_next(&sub, &g) > 0) {
        if (g.number == TRAK_PB_VulkanApiEvent_VkDebugUtilsObjectName_object_type &&
            g.wire_type == TRAK_PB_WIRE_VARINT)
          type = (int32_t)g.value;
        else if (g.number == TRAK_PB_VulkanApiEvent_VkDebugUtilsObjectName_object &&
                 g.wire_type == TRAK_PB_WIRE_VARINT)
          object = g.value;
        else if (g.number == TRAK_PB_VulkanApiEvent_VkDebugUtilsObjectName_object_name &&
                 g.wire_type == TRAK_PB_WIRE_LEN)
          name = str(imp, g.data, g.len);
      }
      trak__gpu_debug_name(imp, type, object, name);
    } else if (f.number == TRAK_PB_VulkanApiEvent_vk_queue_submit) {
      queue_submit(imp, ctx, f.data, f.len);
    }
  }
}

static void gpu_log(trak_importer *imp, const trak_packet_ctx *ctx, const uint8_t *data,
                    size_t len) {
  static const char *const severities[] = {"UNSPECIFIED", "VERBOSE", "DEBUG", "INFO",
                                           "WARNING",     "ERROR",   "UNKNOWN_SEVERITY"};
  uint64_t severity = 0;
  trak_span tag = {NULL, 0}, message = {NULL, 0};
  int has_tag = 0, has_message = 0;
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number == TRAK_PB_GpuLog_severity && f.wire_type == TRAK_PB_WIRE_VARINT)
      severity = f.value;
    else if (f.number == TRAK_PB_GpuLog_tag && f.wire_type == TRAK_PB_WIRE_LEN)
      tag = (trak_span){f.data, f.len}, has_tag = 1;
    else if (f.number == TRAK_PB_GpuLog_log_message && f.wire_type == TRAK_PB_WIRE_LEN)
      message = (trak_span){f.data, f.len}, has_message = 1;
  }
  if (severity > 6) severity = 6; /* past ERROR: the last name */
  uint32_t set = (uint32_t)imp->tables->args.n;
  if (has_tag) arg_str(imp, set, "tag", str(imp, tag.data, tag.len));
  if (has_message) arg_str(imp, set, "message", str(imp, message.data, message.len));
  set = args_close(imp, set);
  const char *name = severities[severity];
  slice(imp, ctx, global_track(imp, TRAK_TK_GPU_LOG, "GPU Log"), str(imp, name, strlen(name)), 0,
        set);
}

static void gpu_mem_total(trak_importer *imp, const trak_packet_ctx *ctx, const uint8_t *data,
                          size_t len) {
  uint32_t gpu = (uint32_t)trak__dec_varint(imp, data, len, TRAK_PB_GpuMemTotalEvent_gpu_id, 0);
  uint32_t pid = (uint32_t)trak__dec_varint(imp, data, len, TRAK_PB_GpuMemTotalEvent_pid, 0);
  uint64_t size = trak__dec_varint(imp, data, len, TRAK_PB_GpuMemTotalEvent_size, 0);
  uint32_t upid = TRAK_NULL_U32;
  if (pid) { /* the process the event names, which need not be the packet's */
    upid = imp->tables->thread.upid[trak__thread_for_tid(imp, pid, pid)];
  }
  uint32_t track = trak__gpu_memory_track(imp, trak__gpu_row(imp, gpu), gpu, upid);
  trak_packet_ctx timed = trak__packet_ctx_timed(imp, ctx);
  trak__system_counter(imp, &timed, track, (double)size);
}

void trak__gpu_api_packet(trak_importer *imp, const trak_packet_ctx *ctx, uint32_t field,
                          const uint8_t *data, size_t len) {
  if (field == TRAK_PB_TracePacket_vulkan_api_event)
    vulkan_api_event(imp, ctx, data, len);
  else if (field == TRAK_PB_TracePacket_gpu_log)
    gpu_log(imp, ctx, data, len);
  else if (field == TRAK_PB_TracePacket_gpu_mem_total_event)
    gpu_mem_total(imp, ctx, data, len);
}
