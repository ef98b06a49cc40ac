/*
** This file holds GpuRenderStageEvent as Perfetto's GPU event parser reads it: each event with
** an event_id is a slice of its render stage from the packet's time for its duration, on the
** track of its GPU's hardware queue (type gpu_render_stage, named by the queue, with the
** queue's description; an interned queue by hw_queue_iid, or one an earlier event's
** specifications listed by hw_queue_id, else "Unknown GPU Queue <id>"). Overlapping slices of
** a queue go on further lanes of it, as Perfetto's track compressor puts them: the slices wait
** for the end of the tokenizing (trak__gpu_stages_finish), sorted by time, each on the first
** lane whose last slice has ended. A slice is named by its name, its interned stage or its
** listed stage ("render stage(<id>)" when unknown) and carries Perfetto's args: the stage's
** category and description, extra data, context_id, render target, pass and subpasses,
** command buffer, submission_id, hw_queue_id and upid. A graphics context an event names
** (interned) becomes a gpu_context row once. A compute dispatch's args come after the stage's:
** its interned kernel's (kernel_name, kernel_demangled_name, arch, the kernel's typed args) and
** its launch's (launch.grid_size.x/y/z, launch.workgroup_size.x/y/z, typed args). Each slice's
** event_id and event_wait_ids are noted for the GPU correlation flows (import/gpu_flows.c).
*/
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "processor/import/gpu_flows.h"
#include "processor/import/hash.h"
#include "processor/import/proto/proto.h"
#include "processor/tables/arg_value.h"

/* An interned queue or stage (gpu_specifications), or a listed one (specifications). */
typedef struct stage_spec {
  uint32_t name, description; /* string ids, 0: none */
  int64_t category;
} stage_spec;

/* An interned graphics context. */
typedef struct gfx_context {
  int64_t pid, api;
  uint8_t has_pid, has_api;
} gfx_context;

/* One stage's slice, until trak__gpu_stages_finish. */
typedef struct stage_slice {
  int64_t ts, dur;
  trak_sequence *seq;
  uint32_t pkt, name, set;
  uint32_t ugpu, source;  /* source: "iid" or "id" (string id) */
  uint64_t hw_queue;      /* its iid or id */
  uint32_t queue_dim;     /* the queue's name as its dimension (0: a placeholder's) */
  uint32_t track_name, track_description;
  size_t order;
} stage_slice;

/* A specification naming queue `hw_queue` of GPU `ugpu` after an event gave it a placeholder. */
typedef struct stage_rename {
  uint32_t ugpu, name, description;
  uint64_t hw_queue;
} stage_rename;

/* A queue's lanes: each lane's track and the end of its last slice. */
typedef struct stage_lanes {
  TRAK_VEC(uint32_t) tracks;
  TRAK_VEC(int64_t) ends;
} stage_lanes;

struct trak_gpu_stages {
  trak_map specs;    /* mix(sequence, iid) -> 1 + index in spec */
  trak_map contexts; /* mix(sequence, iid) -> 1 + index in context */
  trak_map context_rows; /* context id -> 1: its gpu_context row is made */
  TRAK_VEC(stage_spec) spec;
  TRAK_VEC(gfx_context) context;
  TRAK_VEC(stage_spec) hw_queues; /* specifications' queues by hw_queue_id (name 0: none) */
  TRAK_VEC(stage_spec) stages;    /* specifications' stages by stage_id */
  TRAK_VEC(stage_slice) slices;
  trak_map queues; /* a queue's key -> 1 + index in lanes */
  TRAK_VEC(stage_lanes) lanes;
  trak_map debug_names; /* mix(VkObjectType, handle) -> its debug name (string id) */
  trak_map unnamed; /* hw_queue_id -> 1: a placeholder's name awaits its specification, 2: done */
  TRAK_VEC(stage_rename) renames; /* placeholders named by a later specification */
  trak_map kernels;               /* mix(sequence, iid) -> 1 + index in kernel */
  TRAK_VEC(trak_span) kernel;     /* InternedComputeKernel bytes (malloc'd copies) */
};

static struct trak_gpu_stages *stages_state(trak_importer *imp) {
  trak_packet_state *s = trak__packet_state(imp);
  if (!s->gpu_stages) {
    s->gpu_stages = calloc(1, sizeof *s->gpu_stages);
    if (!s->gpu_stages) abort();
  }
  return s->gpu_stages;
}

/* The string id of [s, s + n); 0 (NULL) for the empty string, as Perfetto interns it. */
static uint32_t str(trak_importer *imp, const char *s, size_t n) {
  return n ? trak__strpool_intern(&imp->tables->strings, s, n) : 0;
}

/* ---- interned data ----------------------------------------------------------------------- */

void trak__gpu_stages_interned(trak_importer *imp, trak_sequence *seq, uint32_t field,
                               const uint8_t *data, size_t len) {
  struct trak_gpu_stages *st = stages_state(imp);
  trak_pb_decoder dec;
  trak_pb_field f;
  uint64_t iid = 0;
  stage_spec spec = {0, 0, 0};
  gfx_context ctx = {0, 0, 0, 0};
  int is_spec = field == TRAK_PB_InternedData_gpu_specifications;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    int varint = f.wire_type == TRAK_PB_WIRE_VARINT, bytes = f.wire_type == TRAK_PB_WIRE_LEN;
    if (f.number == 1 && varint) /* iid, field 1 of both messages */
      iid = f.value;
    else if (is_spec && f.number == TRAK_PB_InternedGpuRenderStageSpecification_name && bytes)
      spec.name = str(imp, (const char *)f.data, f.len);
    else if (is_spec && f.number == TRAK_PB_InternedGpuRenderStageSpecification_description &&
             bytes)
      spec.description = str(imp, (const char *)f.data, f.len);
    else if (is_spec && f.number == TRAK_PB_InternedGpuRenderStageSpecification_category &&
             varint)
      spec.category = (int32_t)f.value;
    else if (!is_spec && f.number == TRAK_PB_InternedGraphicsContext_pid && varint)
      ctx.pid = (int32_t)f.value, ctx.has_pid = 1;
    else if (!is_spec && f.number == TRAK_PB_InternedGraphicsContext_api && varint)
      ctx.api = (int32_t)f.value, ctx.has_api = 1;
  }
  int added;
  uint32_t *slot =
      trak__map_put(is_spec ? &st->specs : &st->contexts, trak__mix(seq->id, iid), 0, &added);
  if (is_spec) {
    if (added) {
      trak_vec_push(st->spec, spec);
      *slot = (uint32_t)st->spec.n;
    }
    st->spec.v[*slot - 1] = spec;
  } else {
    if (added) {
      trak_vec_push(st->context, ctx);
      *slot = (uint32_t)st->context.n;
    }
    st->context.v[*slot - 1] = ctx;
  }
}

void trak__gpu_kernel_interned(trak_importer *imp, trak_sequence *seq, const uint8_t *data,
                               size_t len) {
  struct trak_gpu_stages *st = stages_state(imp);
  trak_pb_decoder dec;
  trak_pb_field f;
  uint64_t iid = 0;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0)
    if (f.number == TRAK_PB_InternedComputeKernel_iid && f.wire_type == TRAK_PB_WIRE_VARINT)
      iid = f.value;
  uint8_t *copy = malloc(len ? len : 1);
  if (!copy) abort();
  if (len) memcpy(copy, data, len);
  int added;
  uint32_t *slot = trak__map_put(&st->kernels, trak__mix(seq->id, iid), 0, &added);
  if (added) {
    trak_span none = {NULL, 0};
    trak_vec_push(st->kernel, none);
    *slot = (uint32_t)st->kernel.n;
  }
  trak_span *k = &st->kernel.v[*slot - 1];
  free((void *)k->data);
  *k = (trak_span){copy, len};
}

static const stage_spec *spec_get(struct trak_gpu_stages *st, const trak_sequence *seq,
                                  uint64_t iid) {
  const uint32_t *slot = trak__map_get(&st->specs, trak__mix(seq->id, iid));
  return slot ? &st->spec.v[*slot - 1] : NULL;
}

/* ---- specifications (deprecated) --------------------------------------------------------- */

/* One Specifications.Description: its name and description (string ids; name 0: none). */
static stage_spec description_read(trak_importer *imp, const uint8_t *data, size_t len) {
  stage_spec s = {0, 0, 0};
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.wire_type != TRAK_PB_WIRE_LEN) continue;
    if (f.number == TRAK_PB_GpuRenderStageEvent_Specifications_Description_name)
      s.name = str(imp, (const char *)f.data, f.len);
    else if (f.number == TRAK_PB_GpuRenderStageEvent_Specifications_Description_description)
      s.description = str(imp, (const char *)f.data, f.len);
  }
  return s;
}

/* An event's specifications: its queues (by index; a queue an earlier event gave a placeholder
** name is renamed on `gpu`, once, as Perfetto renames its first lane) and stages (appended);
** returns the pid of its context_spec, or `pid`. */
static int64_t specifications(trak_importer *imp, const uint8_t *data, size_t len, int64_t pid,
                              uint32_t gpu) {
  struct trak_gpu_stages *st = stages_state(imp);
  trak_pb_decoder dec;
  trak_pb_field f;
  size_t queue = 0;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.wire_type != TRAK_PB_WIRE_LEN) continue;
    if (f.number == TRAK_PB_GpuRenderStageEvent_Specifications_hw_queue) {
      stage_spec s = description_read(imp, f.data, f.len);
      if (s.name) {
        stage_spec none = {0, 0, 0};
        while (st->hw_queues.n <= queue)
          trak_vec_push(st->hw_queues, none);
        st->hw_queues.v[queue] = s;
        uint32_t *unnamed = trak__map_get(&st->unnamed, queue);
        if (unnamed && *unnamed == 1) {
          *unnamed = 2;
          stage_rename r = {trak__gpu_row(imp, gpu), s.name, s.description, queue};
          trak_vec_push(st->renames, r);
        }
      }
      queue++;
    } else if (f.number == TRAK_PB_GpuRenderStageEvent_Specifications_stage) {
      stage_spec s = description_read(imp, f.data, f.len);
      if (s.name) trak_vec_push(st->stages, s);
    } else if (f.number == TRAK_PB_GpuRenderStageEvent_Specifications_context_spec) {
      trak_pb_decoder sub;
      trak_pb_field g;
      trak__dec_init(imp, &sub, f.data, f.len);
      while (trak_pb_decoder_next(&sub, &g) > 0)
        if (g.number == TRAK_PB_GpuRenderStageEvent_Specifications_ContextSpec_pid &&
            g.wire_type == TRAK_PB_WIRE_VARINT)
          pid = (int32_t)g.value;
    }
  }
  return pid;
}

/* ---- the event --------------------------------------------------------------------------- */

/* The gpu_context row of context `id`, made once. */
static void context_row(trak_importer *imp, uint64_t id, const gfx_context *c) {
  static const char *const apis[] = {"UNDEFINED", "OPEN_GL", "VULKAN", "OPEN_CL", "CUDA", "HIP"};
  struct trak_gpu_stages *st = stages_state(imp);
  int added;
  trak__map_put(&st->context_rows, id, 1, &added);
  if (!added) return;
  trak_tables *t = imp->tables;
  uint32_t r = trak__gpu_context_push(t);
  t->gpu_context.context_id[r] = (uint32_t)id;
  if (c->has_pid) t->gpu_context.pid[r] = (uint32_t)c->pid;
  if (c->has_api) {
    const char *api = c->api >= 0 && c->api < 6 ? apis[c->api] : "UNDEFINED";
    t->gpu_context.api[r] = str(imp, api, strlen(api));
  }
}

static void arg_key_int(trak_importer *imp, uint32_t set, uint32_t k, trak_arg_type type,
                        int64_t value) {
  trak_tables *t = imp->tables;
  uint32_t row = trak__arg_add(t, set, k, k, type); /* may move the columns */
  trak__arg_set_int(t, row, value);
}

static void arg_int(trak_importer *imp, uint32_t set, const char *key, trak_arg_type type,
                    int64_t value) {
  arg_key_int(imp, set, str(imp, key, strlen(key)), type, value);
}

static void arg_str(trak_importer *imp, uint32_t set, uint32_t k, uint32_t value) {
  trak_tables *t = imp->tables;
  uint32_t row = trak__arg_add(t, set, k, k, TRAK_ARG_STRING); /* may move the columns */
  trak__arg_set_str(t, row, value);
}

static void arg_named_str(trak_importer *imp, uint32_t set, const char *key, uint32_t value) {
  arg_str(imp, set, str(imp, key, strlen(key)), value);
}

/* The render subpasses of the event's index masks: the set bits' indexes joined by ',', each
** mask 64 bits on from the last (string id; 0: the event has no mask). */
static uint32_t subpasses(trak_importer *imp, const uint8_t *data, size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  trak_u64_vec masks = {0};
  int any = 0;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0)
    if (f.number == TRAK_PB_GpuRenderStageEvent_render_subpass_index_mask)
      any = 1, (void)trak__pb_push_varints(&f, &masks);
  if (!any) return 0;
  char text[1024];
  size_t n = 0;
  uint64_t bit = 0;
  for (size_t i = 0; i < masks.n; i++) {
    uint64_t m = masks.v[i];
    do {
      if ((m & 1) && n + 24 < sizeof text)
        n += (size_t)snprintf(text + n, sizeof text - n, "%s%" PRIu64, n ? "," : "", bit);
      m >>= 1;
      bit++;
    } while (m);
    bit = ((bit - 1) / 64 + 1) * 64;
  }
  trak_vec_free(masks);
  return str(imp, text, n);
}

/* The fields of a GpuRenderStageEvent that name its queue, stage and slice. */
typedef struct stage_fields {
  uint64_t event_id, duration, hw_queue_iid, stage_iid, context, render_target, render_pass,
      command_buffer, name_iid, render_pass_instance, kernel_iid;
  int64_t hw_queue_id, stage_id, submission_id;
  uint32_t gpu;
  uint8_t has_event_id, has_hw_queue_iid, has_stage_iid, has_stage_id, has_context, has_name_iid;
  uint8_t has_kernel_iid;
  trak_span name, specs, launch;
  uint8_t has_name, has_specs, has_launch;
} stage_fields;

static stage_fields fields_read(trak_importer *imp, const uint8_t *data, size_t len) {
  stage_fields e;
  memset(&e, 0, sizeof e);
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.wire_type == TRAK_PB_WIRE_LEN) {
      if (f.number == TRAK_PB_GpuRenderStageEvent_name)
        e.name = (trak_span){f.data, f.len}, e.has_name = 1;
      else if (f.number == TRAK_PB_GpuRenderStageEvent_specifications)
        e.specs = (trak_span){f.data, f.len}, e.has_specs = 1;
      else if (f.number == TRAK_PB_GpuRenderStageEvent_launch)
        e.launch = (trak_span){f.data, f.len}, e.has_launch = 1;
      continue;
    }
    if (f.wire_type != TRAK_PB_WIRE_VARINT) continue;
    switch (f.number) {
    case TRAK_PB_GpuRenderStageEvent_event_id: e.event_id = f.value, e.has_event_id = 1; break;
    case TRAK_PB_GpuRenderStageEvent_duration: e.duration = f.value; break;
    case TRAK_PB_GpuRenderStageEvent_hw_queue_iid:
      e.hw_queue_iid = f.value, e.has_hw_queue_iid = 1;
      break;
    case TRAK_PB_GpuRenderStageEvent_stage_iid: e.stage_iid = f.value, e.has_stage_iid = 1; break;
    case TRAK_PB_GpuRenderStageEvent_gpu_id: e.gpu = (uint32_t)f.value; break;
    case TRAK_PB_GpuRenderStageEvent_context: e.context = f.value, e.has_context = 1; break;
    case TRAK_PB_GpuRenderStageEvent_render_target_handle: e.render_target = f.value; break;
    case TRAK_PB_GpuRenderStageEvent_submission_id: e.submission_id = (uint32_t)f.value; break;
    case TRAK_PB_GpuRenderStageEvent_render_pass_handle: e.render_pass = f.value; break;
    case TRAK_PB_GpuRenderStageEvent_command_buffer_handle: e.command_buffer = f.value; break;
    case TRAK_PB_GpuRenderStageEvent_render_pass_instance_id:
      e.render_pass_instance = f.value;
      break;
    case TRAK_PB_GpuRenderStageEvent_name_iid: e.name_iid = f.value, e.has_name_iid = 1; break;
    case TRAK_PB_GpuRenderStageEvent_kernel_iid:
      e.kernel_iid = f.value, e.has_kernel_iid = 1;
      break;
    case TRAK_PB_GpuRenderStageEvent_hw_queue_id: e.hw_queue_id = (int32_t)f.value; break;
    case TRAK_PB_GpuRenderStageEvent_stage_id:
      e.stage_id = (int32_t)f.value, e.has_stage_id = 1;
      break;
    default: break;
    }
  }
  return e;
}

/* The slice's name: its own, its interned event name, or its stage's. */
static uint32_t stage_name(trak_importer *imp, const trak_packet_ctx *ctx,
                           const stage_fields *e) {
  struct trak_gpu_stages *st = stages_state(imp);
  if (e->has_name_iid) {
    const uint32_t *id = trak__map_get(&ctx->seq->interned[TRAK_INTERN_NAME], e->name_iid);
    return id ? *id : 0;
  }
  if (e->has_name) return str(imp, (const char *)e->name.data, e->name.len);
  if (e->has_stage_iid) {
    const stage_spec *s = spec_get(st, ctx->seq, e->stage_iid);
    return s ? (s->name ? s->name : str(imp, "", 0)) : 0;
  }
  uint64_t id = (uint64_t)e->stage_id;
  if (id < st->stages.n) return st->stages.v[id].name;
  char text[64];
  int n = snprintf(text, sizeof text, "render stage(%" PRIu64 ")", id);
  return str(imp, text, (size_t)n);
}

void trak__gpu_debug_name(trak_importer *imp, int32_t type, uint64_t object, uint32_t name) {
  int added;
  *trak__map_put(&stages_state(imp)->debug_names, trak__mix((uint32_t)type, object), 0, &added) =
      name;
}

/* The debug name of Vulkan object `object` of VkObjectType `type` (string id, 0: none). */
static uint32_t debug_name(struct trak_gpu_stages *st, int32_t type, uint64_t object) {
  const uint32_t *name = trak__map_get(&st->debug_names, trak__mix((uint32_t)type, object));
  return name ? *name : 0;
}

/* ---- compute dispatches ------------------------------------------------------------------ */

/* One ExtraComputeArg as an arg named by its name or interned name (none: no arg), of its first
** present value among int, uint, double, interned string, string (Perfetto's order). */
static void compute_arg(trak_importer *imp, trak_sequence *seq, uint32_t set, const uint8_t *data,
                        size_t len) {
  /* the values by field number from int_value: int, uint, double, string, string_value_iid */
  enum { INT, UINT, REAL, STR, STR_IID, N_VALUES };
  const uint32_t first = TRAK_PB_GpuRenderStageEvent_ExtraComputeArg_int_value;
  trak_pb_field v[N_VALUES];
  memset(v, 0, sizeof v);
  uint8_t has[N_VALUES] = {0};
  uint32_t key = 0;
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init(imp, &dec, data, len);
  int named = 0; /* name_iid wins over name, as Perfetto checks it first */
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number == TRAK_PB_GpuRenderStageEvent_ExtraComputeArg_name_iid &&
        f.wire_type == TRAK_PB_WIRE_VARINT) {
      const uint32_t *id = trak__map_get(&seq->interned[TRAK_INTERN_COMPUTE_ARG_NAME], f.value);
      key = id ? *id : 0, named = 1;
    } else if (f.number == TRAK_PB_GpuRenderStageEvent_ExtraComputeArg_name &&
               f.wire_type == TRAK_PB_WIRE_LEN && !named) {
      key = str(imp, (const char *)f.data, f.len);
    } else if (f.number >= first && f.number < first + N_VALUES) {
      uint32_t k = f.number - first;
      int wire = k == REAL ? TRAK_PB_WIRE_FIXED64 : k == STR ? TRAK_PB_WIRE_LEN : TRAK_PB_WIRE_VARINT;
      if ((int)f.wire_type == wire) v[k] = f, has[k] = 1;
    }
  }
  if (!key) return;
  if (has[INT]) {
    arg_key_int(imp, set, key, TRAK_ARG_INT, (int64_t)v[INT].value);
  } else if (has[UINT]) {
    arg_key_int(imp, set, key, TRAK_ARG_UINT, (int64_t)v[UINT].value);
  } else if (has[REAL]) {
    trak_tables *t = imp->tables;
    uint32_t row = trak__arg_add(t, set, key, key, TRAK_ARG_REAL); /* may move the columns */
    trak__arg_set_real(t, row, trak_pb_as_double(&v[REAL]));
  } else if (has[STR_IID]) {
    const uint32_t *id = trak__map_get(&seq->interned[TRAK_INTERN_DEBUG_STRING], v[STR_IID].value);
    if (id) arg_str(imp, set, key, *id);
  } else if (has[STR]) {
    arg_str(imp, set, key, str(imp, (const char *)v[STR].data, v[STR].len));
  }
}

/* The args of interned kernel `iid`: kernel_name, kernel_demangled_name, arch (those present),
** then its typed args. None when the kernel is not interned on the sequence. */
static void kernel_args(trak_importer *imp, trak_sequence *seq, uint32_t set, uint64_t iid) {
  struct trak_gpu_stages *st = stages_state(imp);
  const uint32_t *slot = trak__map_get(&st->kernels, trak__mix(seq->id, iid));
  if (!slot) return;
  const trak_span *k = &st->kernel.v[*slot - 1];
  trak_span name = {NULL, 0}, demangled = {NULL, 0}, arch = {NULL, 0};
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init(imp, &dec, k->data, k->len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.wire_type != TRAK_PB_WIRE_LEN) continue;
    if (f.number == TRAK_PB_InternedComputeKernel_name)
      name = (trak_span){f.data, f.len};
    else if (f.number == TRAK_PB_InternedComputeKernel_demangled_name)
      demangled = (trak_span){f.data, f.len};
    else if (f.number == TRAK_PB_InternedComputeKernel_arch)
      arch = (trak_span){f.data, f.len};
  }
  static const char *const keys[] = {"kernel_name", "kernel_demangled_name", "arch"};
  const trak_span *vals[] = {&name, &demangled, &arch};
  for (size_t i = 0; i < 3; i++)
    if (vals[i]->data)
      arg_named_str(imp, set, keys[i], str(imp, (const char *)vals[i]->data, vals[i]->len));
  trak__dec_init(imp, &dec, k->data, k->len);
  while (trak_pb_decoder_next(&dec, &f) > 0)
    if (f.number == TRAK_PB_InternedComputeKernel_args && f.wire_type == TRAK_PB_WIRE_LEN)
      compute_arg(imp, seq, set, f.data, f.len);
}

/* The axes of a Dim3 present, as uint args `prefix`.x / .y / .z. */
static void dim3_args(trak_importer *imp, uint32_t set, const char *prefix, const uint8_t *data,
                      size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  uint64_t v[3] = {0, 0, 0};
  uint8_t has[3] = {0};
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0)
    if (f.wire_type == TRAK_PB_WIRE_VARINT && f.number >= TRAK_PB_GpuRenderStageEvent_Dim3_x &&
        f.number <= TRAK_PB_GpuRenderStageEvent_Dim3_z)
      v[f.number - TRAK_PB_GpuRenderStageEvent_Dim3_x] = (uint32_t)f.value,
                                                   has[f.number - TRAK_PB_GpuRenderStageEvent_Dim3_x] = 1;
  for (int i = 0; i < 3; i++) {
    if (!has[i]) continue;
    char key[64];
    int n = snprintf(key, sizeof key, "%s.%c", prefix, "xyz"[i]);
    arg_key_int(imp, set, str(imp, key, (size_t)n), TRAK_ARG_UINT, (int64_t)v[i]);
  }
}

/* A ComputeKernelLaunch's args: the grid's and workgroup's sizes, then its typed args. */
static void launch_args(trak_importer *imp, trak_sequence *seq, uint32_t set, const uint8_t *data,
                        size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  trak_span grid = {NULL, 0}, group = {NULL, 0};
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.wire_type != TRAK_PB_WIRE_LEN) continue;
    if (f.number == TRAK_PB_GpuRenderStageEvent_ComputeKernelLaunch_grid_size)
      grid = (trak_span){f.data, f.len};
    else if (f.number == TRAK_PB_GpuRenderStageEvent_ComputeKernelLaunch_workgroup_size)
      group = (trak_span){f.data, f.len};
  }
  if (grid.data) dim3_args(imp, set, "launch.grid_size", grid.data, grid.len);
  if (group.data) dim3_args(imp, set, "launch.workgroup_size", group.data, group.len);
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0)
    if (f.number == TRAK_PB_GpuRenderStageEvent_ComputeKernelLaunch_args &&
        f.wire_type == TRAK_PB_WIRE_LEN)
      compute_arg(imp, seq, set, f.data, f.len);
}

/* The slice's args, in Perfetto's order. */
static uint32_t stage_args(trak_importer *imp, const trak_packet_ctx *ctx, const stage_fields *e,
                           const uint8_t *data, size_t len, uint64_t hw_queue, int64_t pid) {
  struct trak_gpu_stages *st = stages_state(imp);
  trak_tables *t = imp->tables;
  uint32_t set = (uint32_t)t->args.n;
  if (e->has_stage_iid) {
    const stage_spec *s = spec_get(st, ctx->seq, e->stage_iid);
    if (s) {
      arg_int(imp, set, "render_stage_category", TRAK_ARG_INT, s->category);
      arg_named_str(imp, set, "description", s->description ? s->description : str(imp, "", 0));
    }
  } else if (e->has_stage_id && (uint64_t)e->stage_id < st->stages.n &&
             st->stages.v[e->stage_id].description) {
    arg_named_str(imp, set, "description", st->stages.v[e->stage_id].description);
  }
  if (e->has_kernel_iid) kernel_args(imp, ctx->seq, set, e->kernel_iid);
  if (e->has_launch) launch_args(imp, ctx->seq, set, e->launch.data, e->launch.len);
  if (e->render_pass_instance) { /* ties the stage to its render pass instance */
    char text[48];
    int n = snprintf(text, sizeof text, "rp:#%" PRIu64, e->render_pass_instance);
    arg_named_str(imp, set, "correlation_id", str(imp, text, (size_t)n));
  }
  trak_pb_decoder dec, sub;
  trak_pb_field f, g;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number != TRAK_PB_GpuRenderStageEvent_extra_data || f.wire_type != TRAK_PB_WIRE_LEN)
      continue;
    uint32_t key = str(imp, "", 0), value = 0;
    trak__dec_init(imp, &sub, f.data, f.len);
    while (trak_pb_decoder_next(&sub, &g) > 0) {
      if (g.wire_type != TRAK_PB_WIRE_LEN) continue;
      if (g.number == TRAK_PB_GpuRenderStageEvent_ExtraData_name)
        key = str(imp, (const char *)g.data, g.len);
      else if (g.number == TRAK_PB_GpuRenderStageEvent_ExtraData_value)
        value = str(imp, (const char *)g.data, g.len);
    }
    arg_str(imp, set, key, value);
  }
  arg_int(imp, set, "context_id", TRAK_ARG_UINT, (int64_t)e->context);
  arg_int(imp, set, "render_target", TRAK_ARG_UINT, (int64_t)e->render_target);
  /* VkObjectType: VK_OBJECT_TYPE_COMMAND_BUFFER 6, _RENDER_PASS 18, _FRAMEBUFFER 24 */
  arg_named_str(imp, set, "render_target_name", debug_name(st, 24, e->render_target));
  arg_int(imp, set, "render_pass", TRAK_ARG_UINT, (int64_t)e->render_pass);
  arg_named_str(imp, set, "render_pass_name", debug_name(st, 18, e->render_pass));
  arg_named_str(imp, set, "render_subpasses", subpasses(imp, data, len));
  arg_int(imp, set, "command_buffer", TRAK_ARG_UINT, (int64_t)e->command_buffer);
  arg_named_str(imp, set, "command_buffer_name", debug_name(st, 6, e->command_buffer));
  arg_int(imp, set, "submission_id", TRAK_ARG_INT, e->submission_id);
  arg_int(imp, set, "hw_queue_id", TRAK_ARG_UINT, (int64_t)hw_queue);
  arg_int(imp, set, "upid", TRAK_ARG_INT, trak__process_for_pid_bare(imp, (uint32_t)pid));
  set = trak__args_share(imp, set);
  if (set != TRAK_NULL_U32) trak__arg_order_log(imp, TRAK_ARG_ORDER_SET, set);
  return set;
}

void trak__gpu_stage_event(trak_importer *imp, const trak_packet_ctx *ctx, const uint8_t *data,
                           size_t len) {
  struct trak_gpu_stages *st = stages_state(imp);
  stage_fields e = fields_read(imp, data, len);
  int64_t pid = 0;
  if (e.has_specs) pid = specifications(imp, e.specs.data, e.specs.len, pid, e.gpu);
  if (e.has_context) {
    const uint32_t *slot = trak__map_get(&st->contexts, trak__mix(ctx->seq->id, e.context));
    if (slot) {
      const gfx_context *c = &st->context.v[*slot - 1];
      pid = c->pid;
      context_row(imp, e.context, c);
    }
  }
  if (!e.has_event_id) return;
  stage_slice s;
  memset(&s, 0, sizeof s);
  if (e.has_hw_queue_iid) {
    const stage_spec *q = spec_get(st, ctx->seq, e.hw_queue_iid);
    if (!q) return; /* a queue never interned: no slice, as Perfetto */
    s.source = str(imp, "iid", 3);
    s.hw_queue = e.hw_queue_iid;
    s.track_name = s.queue_dim = q->name ? q->name : str(imp, "", 0);
    s.track_description = q->description;
  } else {
    s.source = str(imp, "id", 2);
    s.hw_queue = (uint32_t)e.hw_queue_id;
    if (s.hw_queue < st->hw_queues.n && st->hw_queues.v[s.hw_queue].name) {
      s.track_name = s.queue_dim = st->hw_queues.v[s.hw_queue].name;
      s.track_description = st->hw_queues.v[s.hw_queue].description;
    } else {
      char text[64];
      int n = snprintf(text, sizeof text, "Unknown GPU Queue %" PRIu64, s.hw_queue);
      s.track_name = str(imp, text, (size_t)n);
      int added;
      trak__map_put(&st->unnamed, s.hw_queue, 1, &added); /* kept when already there */
    }
  }
  trak_packet_ctx timed = trak__packet_ctx_timed(imp, ctx);
  s.ts = timed.ts;
  s.dur = (int64_t)e.duration;
  s.seq = ctx->seq;
  s.pkt = (uint32_t)imp->packet_index;
  s.ugpu = trak__gpu_row(imp, e.gpu);
  s.name = stage_name(imp, ctx, &e);
  s.set = stage_args(imp, ctx, &e, data, len, s.hw_queue, pid);
  s.order = st->slices.n;
  trak_vec_push(st->slices, s);
  trak_u64_vec waits = {0};
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0)
    if (f.number == TRAK_PB_GpuRenderStageEvent_event_wait_ids)
      (void)trak__pb_push_varints(&f, &waits);
  trak__gpu_flows_note_stage(imp, s.pkt, e.event_id, waits.v, waits.n);
  trak_vec_free(waits);
}

/* ---- the slices, sorted ------------------------------------------------------------------ */

static int slice_cmp(const void *a, const void *b) {
  const stage_slice *x = a, *y = b;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

/* The key of a queue's lanes: its GPU, source, id and name dimension. */
static uint64_t queue_key(uint32_t ugpu, uint32_t source, uint64_t hw_queue, uint32_t queue_dim) {
  return trak__mix(trak__mix(trak__mix(trak__mix(0x67707571ULL, ugpu), source), hw_queue),
                   queue_dim);
}

/* The track of the first lane of slice `s`'s queue free at its start, made when none is. */
static uint32_t lane_track(trak_importer *imp, const stage_slice *s) {
  struct trak_gpu_stages *st = stages_state(imp);
  uint64_t key = queue_key(s->ugpu, s->source, s->hw_queue, s->queue_dim);
  int added;
  uint32_t *slot = trak__map_put(&st->queues, key, 0, &added);
  if (added) {
    stage_lanes none = {{NULL, 0, 0}, {NULL, 0, 0}};
    trak_vec_push(st->lanes, none);
    *slot = (uint32_t)st->lanes.n;
  }
  stage_lanes *q = &st->lanes.v[*slot - 1];
  size_t l = 0;
  while (l < q->ends.n && q->ends.v[l] > s->ts)
    l++;
  if (l == q->ends.n) {
    uint32_t track = trak__keyed_track(imp, trak__track_key(TRAK_TK_GPU_RENDER_STAGE, key, l),
                                       s->track_name, TRAK_NULL_U32, 0, TRAK_TK_GPU_RENDER_STAGE);
    trak_track_info *info = &imp->tracks.info.v[track];
    info->lane = s->ugpu;
    info->scope = s->source;
    info->dim_int = (int64_t)s->hw_queue;
    info->dim_key = s->queue_dim;
    info->description = s->track_description;
    info->machine = imp->threads.machine;
    info->rank = (int32_t)l;
    trak_vec_push(q->tracks, track);
    trak_vec_push(q->ends, INT64_MIN);
  }
  q->ends.v[l] = trak__sat_add(s->ts, s->dur > 0 ? s->dur : 0); /* INT64_MAX past int64 */
  return q->tracks.v[l];
}

void trak__gpu_stages_finish(trak_importer *imp) {
  trak_packet_state *ps = imp->packet_state;
  struct trak_gpu_stages *st = ps ? ps->gpu_stages : NULL;
  if (!st || !st->slices.n) return;
  qsort(st->slices.v, st->slices.n, sizeof *st->slices.v, slice_cmp);
  for (size_t i = 0; i < st->slices.n; i++) {
    const stage_slice *s = &st->slices.v[i];
    uint32_t track = lane_track(imp, s);
    uint32_t aux = (uint32_t)imp->aux.n;
    trak_vec_push(imp->aux, (uint64_t)s->dur);
    trak_vec_push(imp->aux, 0);
    trak_ev ev = {s->ts, (uint32_t)TRAK_EV_COMPLETE << TRAK_EV_TYPE_SHIFT | track, s->pkt,
                  {{s->name, 0}}, s->set, aux};
    trak__sequence_push(imp, s->seq, &ev);
  }
  trak_vec_free(st->slices);
  for (size_t i = 0; i < st->renames.n; i++) { /* the first lane of a placeholder's queue */
    const stage_rename *r = &st->renames.v[i];
    const uint32_t *slot = trak__map_get(&st->queues, queue_key(r->ugpu, str(imp, "id", 2),
                                                                r->hw_queue, 0));
    if (!slot || !st->lanes.v[*slot - 1].tracks.n) continue;
    trak_track_info *info = &imp->tracks.info.v[st->lanes.v[*slot - 1].tracks.v[0]];
    info->name = r->name;
    info->description = r->description;
  }
}

void trak__gpu_stages_free(struct trak_gpu_stages *st) {
  if (!st) return;
  trak__map_free(&st->specs);
  trak__map_free(&st->contexts);
  trak__map_free(&st->context_rows);
  trak__map_free(&st->queues);
  trak__map_free(&st->kernels);
  for (size_t i = 0; i < st->kernel.n; i++)
    free((void *)st->kernel.v[i].data);
  trak_vec_free(st->kernel);
  trak_vec_free(st->spec);
  trak_vec_free(st->context);
  trak_vec_free(st->hw_queues);
  trak_vec_free(st->stages);
  trak_vec_free(st->slices);
  for (size_t i = 0; i < st->lanes.n; i++) {
    trak_vec_free(st->lanes.v[i].tracks);
    trak_vec_free(st->lanes.v[i].ends);
  }
  trak_vec_free(st->lanes);
  trak__map_free(&st->unnamed);
  trak__map_free(&st->debug_names);
  trak_vec_free(st->renames);
  free(st);
}
