/*
** The protobuf importer's private interface (this folder only, and its two entry points for
** read/ and processor.c): TracePacket dispatch (packet.c), TrackEvent (track_event.c with
** typed_args.c and legacy_event.c, whose own header is track_event.h), interned data, the
** tokenizing half of callstacks and Chromium's process stats.
*/
#ifndef TRAK_PROCESSOR_IMPORT_PROTO_PROTO_H
#define TRAK_PROCESSOR_IMPORT_PROTO_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "processor/import/importer.h"

/* Tokenizes one serialized TracePacket (packet.c). Never fails: problems are reported. */
void trak__packet_tokenize(trak_importer *imp, const uint8_t *data, size_t len);

/* A TracePacket's top-level fields, decoded (packet.c): the fields that need ordering (state
** changes apply before the payload) and the sub-messages packet.c reads, as spans into the
** packet's bytes. Only the part before `span` is zeroed per packet; a span is read only if its
** bit is in `present`. */
#define TRAK_PACKET_SPANS 10

/* A TrackEvent decoded on the import's decoding thread (trak__track_event_predecode): the
** fields of a common event, which the importer's thread then takes instead of decoding the
** event again. Spans are offsets into the event's bytes. */
#define TRAK_TE_PRE_ANNOS 4
typedef struct trak_te_pre {
  uint64_t type, track_uuid, name_iid, cat_iid, value; /* value: counter_value's raw bits */
  uint32_t name_at, name_len;                          /* has_name: the inline name */
  uint32_t anno_at[TRAK_TE_PRE_ANNOS], anno_len[TRAK_TE_PRE_ANNOS];
  uint8_t has_type, has_track, has_name_iid, has_name, n_cat_iids, n_annos;
  uint8_t has_value, value_is_double;
} trak_te_pre;

typedef struct trak_packet_fields {
  uint64_t timestamp;
  uint32_t clock_id, seq_id, flags;
  uint32_t dropped; /* previous_packet_dropped: 1, or a DATA_LOSS_* bit mask */
  uint32_t present; /* bit 1 << P_* (packet.c): that span was in the packet */
  uint32_t meta_field;
  const uint8_t *raw; /* the packet's bytes, kept if its clock is not known yet */
  size_t raw_len;
  uint8_t has_ts, has_clock, has_seq, cleared, first_on_seq;
  uint8_t has_zstd;
  uint8_t unhandled; /* has fields the common switch does not read (packet.c) */
  uint8_t malformed; /* the fields stop decoding before the packet's end */
  uint8_t te_pre;    /* `te` holds the packet's TrackEvent, decoded (the decoding thread) */
  uint8_t plain; /* only a track_event, a sequence id, a timestamp and flags, all read by the
                 ** one-byte tags' fast path (packet.c): none of the rarer fields' tests apply */
  trak_span span[TRAK_PACKET_SPANS];
  trak_te_pre te;
} trak_packet_fields;

/* trak__packet_tokenize in two halves, for the import's decoding thread (read/pipeline.c).
** trak__packet_decode reads nothing but [data, data + len) (and may read ahead up to `limit`,
** the end of the buffer that holds it from `base`), so it runs on any thread; `pf` points
** into the bytes, which must outlive trak__packet_tokenize_decoded. That one runs on the
** importer's thread, in packet order, and does all the rest, exactly as
** trak__packet_tokenize would. */
void trak__packet_decode(const uint8_t *base, const uint8_t *limit, const uint8_t *data, size_t len,
                         trak_packet_fields *pf);
void trak__packet_tokenize_decoded(trak_importer *imp, trak_packet_fields *pf);
/* Converts and imports the packets kept because their clock was not known when they were read
** (packet.c), now that the whole trace is; those still unknown are counted. Called once, after
** the last packet and before the parse phase. */
void trak__packets_retry_deferred(trak_importer *imp);
/* Tokenizes a TrackEvent of a packet (track_event.c); `pre` (NULL: none) is the event
** decoded by trak__track_event_predecode, whose fields are taken instead of decoding it. */
void trak__track_event_tokenize(trak_importer *imp, trak_packet_ctx *ctx, const uint8_t *data,
                                size_t len, const trak_te_pre *pre);
/* trak__track_event_tokenize of an event the decoding thread predecoded (`pre`, not NULL): a
** slice event or counter value of the common shape is pushed from `pre` alone. */
void trak__track_event_tokenize_pre(trak_importer *imp, trak_packet_ctx *ctx, const uint8_t *data,
                                    size_t len, const trak_te_pre *pre);
/* Decodes a TrackEvent's fields into `pre` when it is a common event (track_event.c): only
** type, track_uuid, name_iid, name, one category iid, up to TRAK_TE_PRE_ANNOS debug
** annotations and a counter value, each with the wire type the encoders write, and the bytes
** decode. Returns 1 then, else 0 (the importer's thread decodes the event itself). Reads
** nothing but [data, data + len) (and up to `limit` from `base`, as trak__packet_decode), so
** it runs on the decoding thread. */
int trak__track_event_predecode(const uint8_t *base, const uint8_t *limit, const uint8_t *data,
                                size_t len, trak_te_pre *pre);

/* Applies a TrackDescriptor (track_descriptor.c); a thread descriptor also becomes `seq`'s
** thread (seq may be NULL). A malformed descriptor, or a thread without pid or tid, a process
** without pid, is counted and skipped. */
void trak__track_descriptor_add(trak_importer *imp, trak_sequence *seq, const uint8_t *data,
                                size_t len);
/* Applies a ThreadDescriptor (in a track descriptor or a legacy packet: track_descriptor.c);
** returns the utid. Can't fail. */
uint32_t trak__thread_descriptor_add(trak_importer *imp, const uint8_t *data, size_t len);
/* Chromium's descriptors' names and process args (chrome_descriptors.c):
** a ChromeProcessDescriptor / ChromeThreadDescriptor of a process / thread row, and a
** ProcessDescriptor's process_labels. Malformed bytes are skipped. */
void trak__process_labels(trak_importer *imp, uint32_t upid, const uint8_t *data, size_t len);
void trak__chrome_process_descriptor(trak_importer *imp, uint32_t upid, const uint8_t *data,
                                     size_t len);
void trak__chrome_thread_descriptor(trak_importer *imp, uint32_t utid, const uint8_t *data,
                                    size_t len);

/* Applies an InternedData message to the sequence's interning maps (interned_data.c). */
void trak__interned_data_add(trak_importer *imp, trak_sequence *seq, const uint8_t *data,
                             size_t len);

/* The tokenizing half of TrackEvent callstacks (callstacks.c): the InternedData messages
** mappings, frames and callstacks (field `field`) of a sequence; an event's callstack (inline
** `inline_stack`, else interned `iid`) and callstack_weight, resolved to frames now (interned
** data changes) and kept under the event's packet index. */
void trak__callstack_interned(trak_importer *imp, trak_sequence *seq, uint32_t field,
                              const uint8_t *data, size_t len) __attribute__((cold));
void trak__callstack_event(trak_importer *imp, trak_sequence *seq, trak_ev *ev, uint32_t upid,
                           const trak_span *inline_stack, uint64_t iid, int has_weight,
                           double weight) __attribute__((cold));
/* A repeated varint field, packed or not, appended to `out` (callstacks.c). Returns 0, or a
** negative TRAK_E* code when a packed element does not decode. */
typedef TRAK_VEC(uint64_t) trak_u64_vec;
int trak__pb_push_varints(const trak_pb_field *f, trak_u64_vec *out);
/* A CPU profile sample's callstack (interned `iid` of `seq`, whose process is `upid`), resolved
** to frames now. Returns its index for trak__callstack_callsite, or TRAK_NULL_U32 when an iid it
** needs is unknown (counted in interned_errors; *unresolved set) or it has no frame
** (*unresolved 0). `unresolved` may be NULL. */
uint32_t trak__callstack_sample(trak_importer *imp, trak_sequence *seq, uint32_t upid,
                                uint64_t iid, int *unresolved);
/* The stack profile rows heap profiles make as they are read (callstacks.c keeps the keys):
** _mapping interns mapping `m` (equal fields: one row) and returns its index for _frame, its
** row made now; _frame the frame row of (mapping, function `name`, rel_pc), made now if new;
** _site the callsite row of (parent, frame, depth) (parent TRAK_NULL_U32: a root);
** _build_id the string a raw build id shows as (hex, a 33-character module id as it is). */
uint32_t trak__callstack_mapping(trak_importer *imp, const trak_sp_mapping *m);
uint32_t trak__callstack_frame(trak_importer *imp, uint32_t mapping, uint32_t name,
                               int64_t rel_pc);
uint32_t trak__callstack_site(trak_importer *imp, uint32_t parent, uint32_t frame,
                              uint32_t depth);
uint32_t trak__callstack_build_id(trak_importer *imp, uint32_t raw);
/* A mapping's name from the string ids of its path components: each after a '/', a leading
** "//" made "/" (what fits 4 KiB). */
uint32_t trak__callstack_path(trak_importer *imp, const uint64_t *ids, size_t n);
/* ProfilePacket (heap_profile.c): heapprofd's dumps, read in packet order: the packet's strings,
** mappings, frames and callstacks become stack profile rows at once, each dump a heap_profile
** row and its samples heap_profile_allocation rows (the change since the process's previous
** dump: allocations positive, frees negative), as Perfetto makes them. _free frees the state.
** Can't fail; problems are counted. */
void trak__profile_packet(trak_importer *imp, const trak_packet_ctx *ctx, const uint8_t *data,
                          size_t len) __attribute__((cold));
void trak__heap_profiles_free(trak_importer *imp);
/* DeobfuscationMapping (deobfuscation.c): _packet keeps a copy; _finish (after every frame is
** made) gives the Java frames of the profiles their deobfuscated_name, as Perfetto does once
** the trace is read; _free frees the copies. Can't fail; problems are counted. */
void trak__deobfuscation_packet(trak_importer *imp, const uint8_t *data, size_t len)
    __attribute__((cold));
void trak__deobfuscation_finish(trak_importer *imp);
void trak__deobfuscation_free(trak_importer *imp);
/* StreamingProfilePacket (stack_samples.c): its samples timed from the sequence's TrackEvent
** time base (which they move) and their callstacks resolved; the rows come from
** trak__stack_samples_finish (after the parse phase), which frees them; _free frees them
** unfinished. Can't fail; problems are counted. */
void trak__streaming_profile_packet(trak_importer *imp, trak_sequence *seq, const uint8_t *data,
                                    size_t len) __attribute__((cold));
void trak__stack_samples_finish(trak_importer *imp);
void trak__stack_samples_free(trak_importer *imp);
/* PerfSample (perf_samples.c), in three steps, as Perfetto reads the packets in time order:
** _packet keeps each one with its callstack (resolved now) and the names its sequence's
** PerfSampleDefaults give its CPU's counters; _apply (tokenizing done, before the parse phase)
** takes them in time order: each sequence's perf session, each (session, CPU)'s counter tracks,
** a sample's counters and thread, the indexed stats; _finish (after the parse phase) writes the
** perf_sample rows with their callsites. _stats_row gives the indexed stats (a format part's);
** _free frees the state. None can fail; problems are counted. */
void trak__perf_sample_packet(trak_importer *imp, trak_packet_ctx *ctx, const uint8_t *data,
                              size_t len) __attribute__((cold));
void trak__perf_samples_apply(trak_importer *imp);
void trak__perf_samples_finish(trak_importer *imp);
int trak__perf_stats_row(const trak_importer *imp, size_t i, trak_traced_row *out);
void trak__perf_samples_free(trak_importer *imp);

/* SysStats (proto/sys_stats.c): the system's counters of one sample, each a counter at the
** packet's time (ctx->ts) on the global (or per-CPU) track of its kind and key. Unknown keys
** and the fields not imported are counted; nothing fails. */
void trak__sys_stats_packet(trak_importer *imp, trak_packet_ctx *ctx, const uint8_t *data,
                            size_t len);
/* `value` at the packet's time on `track`, through the parse phase as any counter. */
void trak__system_counter(trak_importer *imp, trak_packet_ctx *ctx, uint32_t track, double value);
/* One SysStats.DiskStat (disk_stats.c): from the second sample of a disk on, the amounts read,
** written and discarded (MB) since the previous one, their throughputs (MB/s over the time the
** disk spent on them), the flushes and their time, each a counter on the disk's diskstat track
** ("diskstat.[<device>].<figure>", with its unit), as Perfetto computes them. */
void trak__disk_stat(trak_importer *imp, trak_packet_ctx *ctx, const uint8_t *data, size_t len);

/* Debug annotations (debug_annotations.c): one event's annotations `annos` (n DebugAnnotation
** messages) as a new arg set, returning its id (shared, trak__args_share) or TRAK_NULL_U32; or
** appended to the arg set `set` being built (its first row). Keys over the limit, values nested
** too deep and malformed bytes are counted; nothing fails. */
uint32_t trak__debug_args_add(trak_importer *imp, trak_sequence *seq, const trak_span *annos,
                              size_t n);
void trak__debug_args_append(trak_importer *imp, trak_sequence *seq, uint32_t set,
                             const trak_span *annos, size_t n);
/* Adds the args of one field of a message (a TrackEvent's typed payload, a generic ftrace
** event) to the arg set `set` as Perfetto's reflection names them: key "name", nested fields
** "name.sub", repeated values "name[i]" (flat key "name"), enums by value name, an empty
** message as a null row (debug_annotations.c). `seq` may be NULL (no interned locations). */
struct trak_pb_field_desc;
void trak__reflect_field_args(trak_importer *imp, trak_sequence *seq, uint32_t set,
                              const struct trak_pb_field_desc *fd, const trak_pb_field *f);
/* Finds imp->te_schema, chrome_te_schema and da_schema once (debug_annotations.c). */
void trak__schemas_init(trak_importer *imp);

/* Source locations (typed_args.c): the interned SourceLocation `iid` of the sequence, or NULL
** (reported as missing); a location's file name as Perfetto writes it ('\\' made '/', absent
** made ""). */
const trak_source_loc *trak__source_loc_get(trak_importer *imp, trak_sequence *seq, uint64_t iid);
uint32_t trak__source_path(trak_importer *imp, uint32_t file);

/* Decodes a SourceLocation (typed_args.c); returns the decoder's result (<0: malformed). */
int trak__source_loc_decode(trak_importer *imp, const uint8_t *data, size_t len,
                            trak_source_loc *out, uint64_t *iid);

/* ---- rare packets (metadata_packets.c), dispatched by packet.c ------------------------- */

/* A packet Perfetto reads after sorting: kept (copied) until the end of the import. */
typedef struct trak_late_packet {
  uint32_t field, machine;
  int64_t ts;
  size_t order; /* file order, for a stable sort */
  uint8_t *data;
  size_t len;
} trak_late_packet;

/* metadata_packets.c's part of the importer (imp->packet_state; NULL until needed). */
/* A power rail's energy value waiting for the end of the tokenizing (power_rails.c). */
typedef struct trak_rail_value {
  int64_t ts;
  trak_sequence *seq;
  uint64_t key; /* its machine, session and index */
  double value;
  uint32_t set; /* its args (packet_ts) */
  uint32_t pkt; /* its packet's index */
} trak_rail_value;

typedef struct trak_packet_state {
  TRAK_VEC(trak_late_packet) late;
  uint8_t trigger_kind;    /* 0 none yet, 1 a trigger, 2 a clone snapshot trigger */
  uint32_t chrome_count;   /* ChromeMetadataPackets so far */
  uint32_t chrome_bundles; /* ChromeEventBundles with metadata so far */
  int64_t last_ts;         /* for late packets without a timestamp */
  uint8_t *config;         /* the last TraceConfig, for trace_stats.c */
  size_t config_len;
  trak_map ftrace_cpus; /* machine << 32 | cpu of the ftrace bundles seen */
  trak_map irq_names;   /* machine << 32 | irq_id of the interrupt names seen */
  trak_map disks; /* machine << 32 | device name id -> 1 + index in disk_prev (disk_stats.c) */
  TRAK_VEC(int64_t) disk_prev; /* each disk's previous figures, DISK_FIGURES a disk */
  uint32_t page_size; /* the last SystemInfo's page size (4096 when it has none), 0 before one */
  trak_map power; /* power_rails.c: (machine, session, index) -> track; android_energy.c:
                  ** (machine, consumer) and (machine, entity, state) -> 1 + index in power_names */
  TRAK_VEC(trak_rail_value) rail_values; /* power_rails.c: until trak__power_rails_finish */
  TRAK_VEC(uint32_t) power_names; /* a consumer's name, type, ordinal; an entity state's entity,
                                  ** state and track names (string ids), three a descriptor */
  uint8_t finished;     /* trak__proto_finish ran */
  struct trak_gpu_state *gpu; /* gpu.c's state, or NULL */
  struct trak_gpu_stages *gpu_stages; /* gpu_stages.c's state, or NULL */
  struct trak_graphics_frames *graphics_frames; /* graphics_frames.c's state, or NULL */
  struct trak_frame_timeline *frame_timeline;   /* frame_timeline.c's state, or NULL */
} trak_packet_state;

/* The state of rare packets (made on first use; can't fail: out of memory aborts). */
trak_packet_state *trak__packet_state(trak_importer *imp);
/* Decode a TracePacket field and hand its values to metadata.c (and the others): trace_uuid,
** system_info (rows and the machine table's columns), service_event (at `ts`, the packet's
** time or 0), trace_attributes (also TraceConfig's), track_event_range_of_interest (the crop
** start; one without start_us is counted), and an ftrace bundle's header
** (ftrace_latest_data_start_ns). Malformed bytes end the decoding; nothing can fail. */
void trak__trace_uuid_packet(trak_importer *imp, const uint8_t *data, size_t len);
void trak__system_info_packet(trak_importer *imp, const uint8_t *data, size_t len);
/* TracePacket.cpu_info (cpu_info.c): each CPU's cpu row gets its processor name, capacity,
** cluster id, frequencies and args, as Perfetto's system probes parser gives them. Can't fail;
** a packet with no CPU counts cpu_info_empty. */
void trak__cpu_info_packet(trak_importer *imp, const uint8_t *data, size_t len);
/* TracePacket.battery (power.c): the gauges it has, each a counter of its battery_counter
** track ("batt.<name>.<gauge>", or "batt.<gauge>" for a battery without a name), with the charge
** from energy and voltage when only those are given and the power from current and voltage, as
** Perfetto's importer makes them. Needs the packet's time (ctx->has_ts). */
void trak__battery_packet(trak_importer *imp, trak_packet_ctx *ctx, const uint8_t *data,
                          size_t len);
/* TracePacket.initial_display_state (power.c): its display_state, a value of the global
** ScreenState counter (type screen_state) at the packet's time. */
void trak__initial_display_state_packet(trak_importer *imp, trak_packet_ctx *ctx,
                                        const uint8_t *data, size_t len);
/* `ctx` with the packet's time, or the latest one for a packet without a timestamp (Perfetto's
** rule for the packets it sorts). */
static inline trak_packet_ctx trak__packet_ctx_timed(const trak_importer *imp,
                                                     const trak_packet_ctx *ctx) {
  trak_packet_ctx c = *ctx;
  if (!c.has_ts) c.ts = imp->latest_ts, c.has_ts = 1;
  return c;
}
/* TracePacket.android_system_property (android_sysprop.c): the properties Perfetto turns into
** counters: debug.tracing.battery_stats.* (battery_stats tracks, which atrace counters share),
** debug.tracing.screen_state (ScreenState), mcc, mnc, desktop_mode_visible_tasks, battery_status
** and plug_type (sysprop_counter tracks), each an integer value at the packet's time. Others
** are skipped. Can't fail. */
void trak__system_property_packet(trak_importer *imp, trak_packet_ctx *ctx, const uint8_t *data,
                                  size_t len);
/* TracePacket.gpu_counter_event, gpu_info and generic_gpu_frequency_event (gpu.c): the gpu
** table's rows, the "gpufreq" counter, GPU counter tracks and groups made now and their samples
** kept for trak__gpu_finish (which sorts them and pushes them, Perfetto's backwards-looking
** values moved onto the previous sample). Can't fail; bad specs count
** gpu_counters_invalid_spec, samples without a timestamp gpu_counters_missing_timestamp. */
void trak__gpu_packet(trak_importer *imp, const trak_packet_ctx *ctx, uint32_t field,
                      const uint8_t *data, size_t len);
/* InternedData.gpu_counter_descriptors (gpu.c): kept for the events that name its iid. */
void trak__gpu_interned_descriptor(trak_importer *imp, trak_sequence *seq, const uint8_t *data,
                                   size_t len);
void trak__gpu_finish(trak_importer *imp);
void trak__gpu_free(struct trak_gpu_state *st);
/* The gpu table row (ugpu) of GPU `gpu` of the packet's machine, made on first use (gpu.c). */
uint32_t trak__gpu_row(trak_importer *imp, uint32_t gpu);
/* TracePacket.gpu_render_stage_event (gpu_stages.c): its stage's slice, kept for
** trak__gpu_stages_finish (which sorts the slices and puts each on the first lane of its
** queue's track that is free at its start); its graphics context a gpu_context row. */
void trak__gpu_stage_event(trak_importer *imp, const trak_packet_ctx *ctx, const uint8_t *data,
                           size_t len);
/* Vulkan object `object` of VkObjectType `type` is called `name` (a string id) from now on: the
** render stages that name it as their render target, render pass or command buffer say so
** (gpu_stages.c). */
void trak__gpu_debug_name(trak_importer *imp, int32_t type, uint64_t object, uint32_t name);
/* TracePacket.vulkan_api_event, gpu_log and gpu_mem_total_event (gpu_api.c): a Vulkan object's
** debug name (trak__gpu_debug_name), a vkQueueSubmit slice of its duration on the global
** "Vulkan Events" track (type vulkan_events; args pid, tid, command_buffer and
** command_buffers[], submission_id), a log line an instant named by its severity on "GPU Log"
** (gpu_log; args tag, message), a GPU memory total a value of "GPU Memory" (gpu_memory, or
** process_gpu_memory for a process), in bytes. Can't fail. */
void trak__gpu_api_packet(trak_importer *imp, const trak_packet_ctx *ctx, uint32_t field,
                          const uint8_t *data, size_t len);
/* TracePacket.graphics_frame_event (graphics_frames.c): its buffer event, kept for
** trak__graphics_frames_finish, which replays them in timestamp order as Perfetto's parser
** does: an instant (or slice of duration_ns) named by the type on "Buffer: <id> <layer>" (args
** frame_number, layer_name, queue_to_acquire_time, acquire_to_latch_time,
** latch_to_present_time), and the phase slices "APP_", "GPU_", "SF_", "Display_" (type
** graphics_frame_event; args frame_number, layer_name) with the names and frame numbers later
** events give them. An event without a buffer_id, and one of a type with no buffer phase,
** count graphics_frame_event_parser_errors. Can't fail. */
void trak__graphics_frame_packet(trak_importer *imp, const trak_packet_ctx *ctx,
                                 const uint8_t *data, size_t len);
void trak__graphics_frames_finish(trak_importer *imp);
void trak__graphics_frames_free(struct trak_graphics_frames *st);
/* TracePacket.frame_timeline_event (frame_timeline.c): its start or end event, kept for
** trak__frame_timeline_finish, which replays them in timestamp order as Perfetto's parser
** does: a start begins a slice named by its token on a lane of its process's "Expected
** Timeline" or "Actual Timeline" (types android_expected_frame_timeline and
** android_actual_frame_timeline) with the tokens, layer and verdict as args; a FrameEnd ends
** the slice its cookie began; each actual surface frame takes a flow into the actual display
** frame of its display_frame_token. A start missing a required field, a FrameEnd without a
** cookie, a packet with no event and a timestamp within 10 s of int64's end count
** frame_timeline_event_parser_errors; a negative timestamp counts
** trace_sorter_negative_timestamp_dropped; a FrameEnd of an unknown cookie counts
** frame_timeline_unpaired_end_event. Can't fail. */
void trak__frame_timeline_packet(trak_importer *imp, const trak_packet_ctx *ctx,
                                 const uint8_t *data, size_t len);
void trak__frame_timeline_finish(trak_importer *imp);
void trak__frame_timeline_free(struct trak_frame_timeline *st);
/* InternedData.graphics_contexts and gpu_specifications (gpu_stages.c). */
void trak__gpu_stages_interned(trak_importer *imp, trak_sequence *seq, uint32_t field,
                               const uint8_t *data, size_t len);
/* GpuInternedData.compute_kernels (gpu_stages.c): the kernel's bytes, copied, for the events
** that name it by kernel_iid on this sequence. Can't fail. */
void trak__gpu_kernel_interned(trak_importer *imp, trak_sequence *seq, const uint8_t *data,
                               size_t len);
void trak__gpu_stages_finish(trak_importer *imp);
void trak__gpu_stages_free(struct trak_gpu_stages *st);
/* TracePacket.power_rails (power_rails.c): its rail descriptors' counter tracks, made at once,
** and its energy values, each at its own time, kept for trak__power_rails_finish. Can't fail; a
** packet without energy values is counted (power_rail_empty_packet). */
void trak__power_rails_packet(trak_importer *imp, trak_packet_ctx *ctx, const uint8_t *data,
                              size_t len);
/* Once tokenizing is done (before the parse): the energy values kept by trak__power_rails_packet
** become counter records on the tracks the last descriptors of their indexes name; a value of
** an index no descriptor names is counted (power_rail_unknown_index). Can't fail. */
void trak__power_rails_finish(trak_importer *imp);
/* TracePacket.android_energy_estimation_breakdown and .entity_state_residency
** (android_energy.c): descriptors are kept (a packet with a consumer descriptor is nothing else,
** as in Perfetto), estimates and residencies become counters at the packet's time (ctx->ts, or
** the latest time without one). Can't fail; what names no descriptor is counted. */
void trak__energy_breakdown_packet(trak_importer *imp, trak_packet_ctx *ctx, const uint8_t *data,
                                   size_t len);
void trak__entity_state_packet(trak_importer *imp, trak_packet_ctx *ctx, const uint8_t *data,
                               size_t len);
/* TracePacket.journald_event (journald.c): a journal entry, a logs row of source
** 'systemd_journald' with its args (at the packet's time, or the latest one without), or the
** data source's counts, which set the systemd_journal_num_* stats. Can't fail. */
void trak__journald_packet(trak_importer *imp, const trak_packet_ctx *ctx, const uint8_t *data,
                           size_t len);
/* TracePacket.packages_list (packages.c): each package not listed before (by name) becomes a
** row of package_list; the packet's parse_error and read_error set the
** packages_list_has_*_errors stats (the last packet's values stand). Can't fail. */
void trak__packages_list_packet(trak_importer *imp, const uint8_t *data, size_t len);
/* TracePacket.interrupt_info (sys_stats.c): each IRQ number with a name becomes a row of
** _linux_interrupt_mapping for the packet's machine, the first name of a number only (Perfetto's
** rule); a mapping without both is skipped. Can't fail. */
void trak__interrupt_info_packet(trak_importer *imp, const uint8_t *data, size_t len);
void trak__service_event_packet(trak_importer *imp, int64_t ts, const uint8_t *data, size_t len);
void trak__trace_attributes_packet(trak_importer *imp, const uint8_t *data, size_t len);
void trak__range_of_interest_packet(trak_importer *imp, const uint8_t *data, size_t len);
void trak__ftrace_bundle_header(trak_importer *imp, const trak_packet_ctx *ctx, const uint8_t *data,
                                size_t len);
/* A packet Perfetto reads after sorting (trace_config, trigger, clone_snapshot_trigger,
** chrome_trigger, chrome_events): a copy kept for trak__proto_finish; a trigger is also an
** instant on the "Trace Triggers" track now, trace_config's attributes rows now. */
void trak__late_packet_keep(trak_importer *imp, const trak_packet_ctx *ctx, uint32_t field,
                            const uint8_t *data, size_t len);
/* Reads the kept packets in timestamp order (file order within one), then orders the service's
** figures (trace_stats.c). Called once, after the parse phase and before
** trak__import_result_make, whatever the format. */
void trak__proto_finish(trak_importer *imp);
/* Frees what this folder keeps in the importer (the importer's format part calls it). */
void trak__proto_free(trak_importer *imp);
/* Frees imp->packet_state (trak__proto_free calls it). */
void trak__packet_state_free(trak_importer *imp);

/* Chromium's packets' metadata rows (chrome_metadata.c): a ChromeMetadataPacket of the
** `instance`-th Chrome (0 first), a ChromeTrigger, a ChromeEventBundle (`bundles` counts those
** with metadata so far; their keys depend on it). */
void trak__chrome_metadata(trak_importer *imp, uint32_t instance, const uint8_t *data, size_t len);
void trak__chrome_trigger(trak_importer *imp, const uint8_t *data, size_t len);
void trak__chrome_events(trak_importer *imp, uint32_t *bundles, const uint8_t *data, size_t len);

/* TracePacket.ftrace_stats (ftrace_stats.c) of sequence `seq_id`: the per-CPU ring buffer
** figures at the start or end of the trace, as stats; at the start, the recorder's setup errors
** (ftrace_setup_errors). */
void trak__ftrace_stats_packet(trak_importer *imp, uint32_t seq_id, const uint8_t *data,
                               size_t len);
/* Kernel functions of ftrace events (ftrace_ksyms.c), and the lookups of them Perfetto makes,
** whose failures trak__ftrace_generic takes as raw | parsed << 8. None can fail.
** trak__ftrace_ksym_field: the kernel function field of member `event` (Perfetto's
**   kKernelFunctionFields), 0 when it has none, with in *parsed the lookups its parser makes
**   (0 or 1).
** trak__ftrace_ksyms_known: whether `seq` (may be NULL) has interned kernel symbols.
** trak__ftrace_ksym: the string id of kernel symbol `iid` of `seq`, 0 when it has none.
** trak__ftrace_ksym_name: that, or Perfetto's fallback name, the value as "0x..." (a new string).
** trak__ftrace_ksym_parsed_key: the key event's parser looks up for field value `value`.
** trak__ftrace_ksym_count: how many times field `field` (0: none) stands in event `ev`'s
**   message without naming a symbol of `seq`, at most 255 (the raw row's failed lookups), for
**   an event whose fields are not decoded otherwise; *last the field's last value (0: none). */
uint32_t trak__ftrace_ksym_field(uint32_t event, uint32_t *parsed);
int trak__ftrace_ksyms_known(const struct trak_sequence *seq);
uint32_t trak__ftrace_ksym(const struct trak_sequence *seq, uint64_t iid);
uint32_t trak__ftrace_ksym_name(trak_importer *imp, const struct trak_sequence *seq, uint64_t key);
uint64_t trak__ftrace_ksym_parsed_key(uint32_t event, uint64_t value);
uint32_t trak__ftrace_ksym_count(trak_importer *imp, const struct trak_sequence *seq,
                                 const trak_pb_field *ev, uint32_t field, uint64_t *last);
/* The kernel's atrace-style events (ftrace_markers.c): when FtraceEvent member `ev` (of thread
** `pid` on `cpu`, at trace time `ts`) is a display or GPU driver's tracing_mark_write or the
** systrace zero event, its atrace point is queued as marker text, as Perfetto's parser reads it
** (slices, instants, counters; an event that names no point counts systrace_parse_failure), and
** 1 is returned; 0 for any other member. The caller still makes its ftrace_event row. */
int trak__ftrace_kernel_marker(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t pid,
                               const trak_pb_field *ev);
/* The kernel's device and subsystem events the sink models (ftrace_devices.c): when FtraceEvent
** member `ev` (of thread `pid` on `cpu` at `ts`, `seq` for kernel symbols, may be NULL) is one
** (sched_cpu_util_cfs, funcgraph_*, ion_stat, kgsl_adreno_cmdbatch_*, thermal_exynos_acpm_*;
** `flags` its common_flags, TRAK_FTRACE_NO_FLAGS when absent),
** its values go to the sink and 1 is returned; 0 for any other member. The caller still makes
** its ftrace_event row. */
int trak__ftrace_device_event(trak_importer *imp, const struct trak_sequence *seq, uint32_t cpu,
                              int64_t ts, uint32_t pid, int64_t flags, const trak_pb_field *ev);
/* The kernel's graphics and video events the sink models (ftrace_graphics.c): when FtraceEvent
** member `ev` (of thread `pid` on `cpu` at `ts`) is one (drm_*, dma_fence_*, v4l2_*, vb2_v4l2_*,
** virtio_video_*), its values go to the sink and 1 is returned; 0 for any other member. The
** caller still makes its ftrace_event row. */
int trak__ftrace_graphics_event(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t pid,
                                const trak_pb_field *ev);
/* The fields of typed event `ev` (a message; anything else has none) numbered below `n` (at
** most 32) into f[number], the last of each as Perfetto's getters read them; returns the
** bitmask of those present (ftrace_devices.c). */
uint32_t trak__ftrace_event_fields(trak_importer *imp, const trak_pb_field *ev, trak_pb_field *f,
                                   uint32_t n);
/* The arg set of typed event `ev`'s generic ftrace_event row, its name's string id in *name
** (ftrace_bundle.c): what the row the bundle made for it has. */
uint32_t trak__ftrace_typed_set(trak_importer *imp, const struct trak_sequence *seq,
                                const trak_pb_field *ev, uint32_t *name);
struct trak_fargs; /* ftrace/ftrace.h */
/* One field `f` of an ftrace event into `a` as Perfetto's raw table keeps it, keyed by string
** id `key`, read as protobuf type `type` (enum trak_pb_type; ftrace_bundle.c). */
void trak__ftrace_raw_field(trak_importer *imp, struct trak_fargs *a, uint32_t key, uint32_t type,
                            const trak_pb_field *f);
/* Self-describing ftrace events (ftrace_generic.c): a bundle's GenericEventDescriptor (read
** before the bundle's events), and an event of FtraceEvent field `e` (numbered 65536 or more)
** into an ftrace_event row. Can't fail (problems are counted). */
void trak__ftrace_generic_descriptor(trak_importer *imp, const uint8_t *data, size_t len);
void trak__ftrace_generic_event(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t pid,
                                int64_t flags, const trak_pb_field *e);
void trak__ftrace_generic_free(trak_importer *imp);
/* TracePacket.ftrace_events (ftrace_bundle.c): the bundle's events to the Linux event sink
** (ftrace/ftrace.h); `seq` (may be NULL) converts their boot-time timestamps. */
void trak__ftrace_bundle(trak_importer *imp, struct trak_sequence *seq, const uint8_t *data,
                         size_t len);

/* An FtraceEventBundle decoded on the import's decoding thread (ftrace_bundle.c): its top-level
** fields as trak__ftrace_bundle reads them, each event with its timestamp, pid and flags, and
** sched_switch / sched_waking events of plain structure with their fields, so that the importer's
** thread does not decode them again. It reads nothing but the bundle's bytes. */
enum { TRAK_FPRE_EVENT, TRAK_FPRE_SWITCH, TRAK_FPRE_WAKING, TRAK_FPRE_COMPACT, TRAK_FPRE_LOST };
typedef struct trak_fpre_ev {
  /* TRAK_FPRE_*: EVENT (an FtraceEvent read from data, len), COMPACT (compact_sched's data,
  ** len), LOST (lost_events), SWITCH or WAKING */
  uint8_t kind;
  uint16_t has; /* SWITCH, WAKING: bit n set when the event's field n is there; COMPACT: 1 when
                ** its arrays are plain and counted (v: the switches' trak_compact_count as n,
                ** first, last, sorted, then the wakings') */
  uint32_t pid; /* SWITCH, WAKING: the FtraceEvent's */
  uint32_t len; /* EVENT, COMPACT: the field's bytes; SWITCH, WAKING: the typed event's */
  const uint8_t *data;
  int64_t ts, flags; /* SWITCH, WAKING: the FtraceEvent's (flags TRAK_FTRACE_NO_FLAGS: none) */
  int64_t v[8]; /* SWITCH, WAKING: the typed event's varint fields by number (field 0 is none of
                ** theirs: WAKING's v[0] is trak__ftrace_args_hash of its bytes as
                ** typed_row keys them) */
  const uint8_t *s[2]; /* its string fields (switch: prev_comm, next_comm; waking: comm) */
  uint32_t s_len[2];
} trak_fpre_ev;
/* An FtraceEventBundle's header as trak__ftrace_bundle_header reads it (metadata_packets.c):
** its cpu, ftrace_clock, data start and the count of its fields the schema lacks. */
typedef struct trak_fhead {
  int has_cpu, has_start; /* has_start 2: previous_bundle_end_timestamp, 1: last_read_... */
  uint32_t unknown;       /* length-delimited or fixed fields of no FtraceEventBundle number */
  uint64_t cpu, start, prev_end, clock;
} trak_fhead;
/* Field `f` of an FtraceEventBundle into `h` (zeroed before the first). Runs on any thread. */
void trak__ftrace_head_field(trak_fhead *h, const trak_pb_field *f);

typedef struct trak_fpre {
  const uint8_t *data; /* the bundle's bytes: the one trak__ftrace_bundle is given */
  size_t len;
  uint32_t cpu;
  trak_fhead head;         /* its header, for trak__ftrace_bundle_header */
  size_t first, n;         /* its fields in the batch's evs */
  const trak_fpre_ev *evs; /* set by trak__ftrace_predecode_done */
} trak_fpre;
typedef struct trak_fpre_set {
  TRAK_VEC(trak_fpre) bundles;
  TRAK_VEC(trak_fpre_ev) evs;
} trak_fpre_set;
/* When packet `pf` (decoded by trak__packet_decode, reading up to `limit`) holds an ftrace bundle
** of plain structure (no self-describing event descriptors, no malformed field), decodes it into
** `set` and returns its index + 1, else 0. Runs on any thread. A packet without a bundle is
** answered inline (its meta_field, zeroed by the decoding, names no bundle). */
uint32_t trak__ftrace_bundle_predecode(const uint8_t *limit, const trak_packet_fields *pf,
                                       trak_fpre_set *set);
static inline uint32_t trak__ftrace_predecode(const uint8_t *limit, const trak_packet_fields *pf,
                                              trak_fpre_set *set) {
  if (pf->meta_field != TRAK_PB_TracePacket_ftrace_events) return 0;
  return trak__ftrace_bundle_predecode(limit, pf, set);
}
/* Points every bundle of `set` at its events once the batch is decoded (the array no longer
** moves). */
void trak__ftrace_predecode_done(trak_fpre_set *set);
/* One FtraceEvent of `len` bytes at `data` (reading up to `limit`; NULL: `data + len`) into
** `out`, written in place: SWITCH or WAKING when it is a plain sched event, else EVENT (its
** bytes). The generic one decodes any event with the protobuf decoder; the fast one reads only
** plain sched events of one-event, varint-head, canonical-tag structure with 16 bytes readable
** past the event, and returns 0 (out then unspecified) on anything else, which the generic one
** then decodes: where it returns 1, `out` is what the generic one writes (ftrace_predecode.c). */
void trak__ftrace_predecode_event(const uint8_t *limit, const uint8_t *data, size_t len,
                                  trak_fpre_ev *out);
int trak__ftrace_predecode_fast(const uint8_t *limit, const uint8_t *data, size_t len,
                                trak_fpre_ev *out);
/* 1 when `a` and `b` say the same to the importer's thread: kind, bytes, head, and the fields
** `has` marks (the tests' and the fuzzer's check of the fast reader against the generic one). */
int trak__fpre_ev_same(const trak_fpre_ev *a, const trak_fpre_ev *b);
/* The head of an FtraceEvent (`dec` on its bytes): its timestamp, pid, common_flags (else
** TRAK_FTRACE_NO_FLAGS) and event field (the last field of any other number); returns 0 when it
** has no event (ftrace_bundle.c). */
int trak__ftrace_event_head(trak_pb_decoder *dec, int64_t *ts, uint32_t *pid, int64_t *flags,
                            trak_pb_field *ev);
/* The rare field packet `pf` holds (packet.c's meta field): its number (0: none) and bytes. */
uint32_t trak__packet_meta(const trak_packet_fields *pf, trak_span *span);

#endif /* TRAK_PROCESSOR_IMPORT_PROTO_PROTO_H */
