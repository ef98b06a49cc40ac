/*
** This file reads the kernel's device and subsystem events that the Linux event sink models
** beyond scheduling (the scheduler's per-CPU figures, function graph tracing, memory
** allocators, GPU command batches, thermal zones) from their protobuf fields and hands their
** values to the sink (import/ftrace/ftrace.h). Each event is also its ftrace_event row, made
** by the caller (ftrace_bundle.c).
*/
#include "processor/import/ftrace/ftrace.h"
#include "processor/import/importer.h"
#include "processor/import/proto/proto.h"

/* An event's fields by number (below 32): the last of each, as Perfetto's getters read them. */
typedef struct dev_fields {
  trak_pb_field f[32];
  uint32_t has;
} dev_fields;

uint32_t trak__ftrace_event_fields(trak_importer *imp, const trak_pb_field *ev, trak_pb_field *f,
                                   uint32_t n) {
  trak_pb_decoder dec;
  trak_pb_field field;
  uint32_t has = 0;
  if (ev->wire_type != TRAK_PB_WIRE_LEN) return 0; /* not a message (a hostile varint): none */
  trak__dec_init(imp, &dec, ev->data, ev->len);
  while (trak_pb_decoder_next(&dec, &field) > 0)
    if (field.number < n) f[field.number] = field, has |= 1u << field.number;
  return has;
}

static void dev_read(trak_importer *imp, const trak_pb_field *ev, dev_fields *out) {
  out->has = trak__ftrace_event_fields(imp, ev, out->f, 32);
}

/* Field n's value (0: absent, or a length-delimited field). */
static uint64_t u(const dev_fields *e, int n) {
  return e->has >> n & 1 && e->f[n].wire_type != TRAK_PB_WIRE_LEN ? e->f[n].value : 0;
}

/* Field n's bytes (*len of them) when it is length-delimited, else "" (0). */
static const char *bytes(const dev_fields *e, int n, size_t *len) {
  int ok = e->has >> n & 1 && e->f[n].wire_type == TRAK_PB_WIRE_LEN;
  *len = ok ? e->f[n].len : 0;
  return ok ? (const char *)e->f[n].data : "";
}

/* f2fs_iostat's (latency 0) and f2fs_iostat_latency's (1) figures as Perfetto names them, in
** its order, by field. */
#define IO(name, field) {name, TRAK_PB_F2fsIostatFtraceEvent_##field, 0}
#define LAT(name, field) {name, TRAK_PB_F2fsIostatLatencyFtraceEvent_##field, 1}
static const struct iostat_field {
  const char *name;
  uint8_t field, latency;
} iostat_fields[] = {
    IO("write_app_total", app_wio),            IO("write_app_direct", app_dio),
    IO("write_app_buffered", app_bio),         IO("write_app_mapped", app_mio),
    IO("write_fs_data", fs_dio),               IO("write_fs_node", fs_nio),
    IO("write_fs_meta", fs_mio),               IO("write_gc_data", fs_gc_dio),
    IO("write_gc_node", fs_gc_nio),            IO("write_cp_data", fs_cp_dio),
    IO("write_cp_node", fs_cp_nio),            IO("write_cp_meta", fs_cp_mio),
    IO("read_app_total", app_rio),             IO("read_app_direct", app_drio),
    IO("read_app_buffered", app_brio),         IO("read_app_mapped", app_mrio),
    IO("read_fs_data", fs_drio),               IO("read_fs_gdata", fs_gdrio),
    IO("read_fs_cdata", fs_cdrio),             IO("read_fs_node", fs_nrio),
    IO("read_fs_meta", fs_mrio),               IO("other_fs_discard", fs_discard),
    LAT("read_data_peak", d_rd_peak),          LAT("read_data_avg", d_rd_avg),
    LAT("read_data_cnt", d_rd_cnt),            LAT("read_node_peak", n_rd_peak),
    LAT("read_node_avg", n_rd_avg),            LAT("read_node_cnt", n_rd_cnt),
    LAT("read_meta_peak", m_rd_peak),          LAT("read_meta_avg", m_rd_avg),
    LAT("read_meta_cnt", m_rd_cnt),            LAT("write_sync_data_peak", d_wr_s_peak),
    LAT("write_sync_data_avg", d_wr_s_avg),    LAT("write_sync_data_cnt", d_wr_s_cnt),
    LAT("write_sync_node_peak", n_wr_s_peak),  LAT("write_sync_node_avg", n_wr_s_avg),
    LAT("write_sync_node_cnt", n_wr_s_cnt),    LAT("write_sync_meta_peak", m_wr_s_peak),
    LAT("write_sync_meta_avg", m_wr_s_avg),    LAT("write_sync_meta_cnt", m_wr_s_cnt),
    LAT("write_async_data_peak", d_wr_as_peak), LAT("write_async_data_avg", d_wr_as_avg),
    LAT("write_async_data_cnt", d_wr_as_cnt),  LAT("write_async_node_peak", n_wr_as_peak),
    LAT("write_async_node_avg", n_wr_as_avg),  LAT("write_async_node_cnt", n_wr_as_cnt),
    LAT("write_async_meta_peak", m_wr_as_peak), LAT("write_async_meta_avg", m_wr_as_avg),
    LAT("write_async_meta_cnt", m_wr_as_cnt)};
#undef IO
#undef LAT

/* An f2fs_iostat (`latency` 0) or f2fs_iostat_latency (1) event's figures to the sink. */
static void iostat(trak_importer *imp, int64_t ts, int latency, const dev_fields *e) {
  const char *names[32];
  uint64_t values[32];
  size_t n = 0;
  for (size_t i = 0; i < sizeof iostat_fields / sizeof *iostat_fields; i++) {
    const struct iostat_field *t = &iostat_fields[i];
    if (t->latency != latency) continue;
    names[n] = t->name; /* the latency figures are uint32 */
    values[n++] = latency ? (uint32_t)u(e, t->field) : u(e, t->field);
  }
  trak__f2fs_iostat(imp, ts, latency,
                    u(e, latency ? TRAK_PB_F2fsIostatLatencyFtraceEvent_dev
                                 : TRAK_PB_F2fsIostatFtraceEvent_dev),
                    names, values, n);
}

/* A CMA event's name, pfn and count, from its fields of those numbers. */
static void cma_head(trak_importer *imp, const dev_fields *e, trak_cma *c, int name, int pfn,
                     int count) {
  size_t n;
  const char *s = bytes(e, name, &n);
  c->name = trak__strpool_intern(&imp->tables->strings, s, n);
  c->pfn = u(e, pfn), c->count = u(e, count); /* cma_alloc_info's count is a uint32 */
}

/* A CMA event (member `number`) with its figures. */
static void cma(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t pid, uint32_t number,
                const dev_fields *e) {
  trak_cma c = {0};
  int kind = 0;
  switch (number) {
  case TRAK_PB_FtraceEvent_mm_alloc_contig_migrate_range_info:
    kind = 1;
    c.migrated = u(e, TRAK_PB_MmAllocContigMigrateRangeInfoFtraceEvent_nr_migrated);
    c.reclaimed = u(e, TRAK_PB_MmAllocContigMigrateRangeInfoFtraceEvent_nr_reclaimed);
    c.mapped = u(e, TRAK_PB_MmAllocContigMigrateRangeInfoFtraceEvent_nr_mapped);
    break;
  case TRAK_PB_FtraceEvent_cma_alloc_finish:
    kind = 2;
    cma_head(imp, e, &c, TRAK_PB_CmaAllocFinishFtraceEvent_name,
             TRAK_PB_CmaAllocFinishFtraceEvent_pfn, TRAK_PB_CmaAllocFinishFtraceEvent_count);
    break;
  case TRAK_PB_FtraceEvent_cma_alloc_info:
    kind = 3;
    cma_head(imp, e, &c, TRAK_PB_CmaAllocInfoFtraceEvent_name, TRAK_PB_CmaAllocInfoFtraceEvent_pfn,
             TRAK_PB_CmaAllocInfoFtraceEvent_count);
    c.migrated = u(e, TRAK_PB_CmaAllocInfoFtraceEvent_nr_migrated);
    c.reclaimed = u(e, TRAK_PB_CmaAllocInfoFtraceEvent_nr_reclaimed);
    c.mapped = u(e, TRAK_PB_CmaAllocInfoFtraceEvent_nr_mapped);
    c.err_iso = (uint32_t)u(e, TRAK_PB_CmaAllocInfoFtraceEvent_err_iso);
    c.err_mig = (uint32_t)u(e, TRAK_PB_CmaAllocInfoFtraceEvent_err_mig);
    c.err_test = (uint32_t)u(e, TRAK_PB_CmaAllocInfoFtraceEvent_err_test);
    break;
  default: /* cma_alloc_start */
    break;
  }
  trak__cma(imp, cpu, ts, pid, kind, &c);
}

int trak__ftrace_device_event(trak_importer *imp, const trak_sequence *seq, uint32_t cpu,
                              int64_t ts, uint32_t pid, int64_t flags, const trak_pb_field *ev) {
  dev_fields e;
  const char *s; /* a string field's bytes */
  size_t n;      /* and their length */
  switch (ev->number) {
  case TRAK_PB_FtraceEvent_sched_cpu_util_cfs:
    dev_read(imp, ev, &e);
    {
      uint32_t c = (uint32_t)u(&e, TRAK_PB_SchedCpuUtilCfsFtraceEvent_cpu);
      trak__cpu_counter(imp, TRAK_TK_CPU_UTILIZATION, c, ts,
                        (double)u(&e, TRAK_PB_SchedCpuUtilCfsFtraceEvent_cpu_util));
      trak__cpu_counter(imp, TRAK_TK_CPU_CAPACITY, c, ts,
                        (double)u(&e, TRAK_PB_SchedCpuUtilCfsFtraceEvent_capacity));
      trak__cpu_counter(imp, TRAK_TK_CPU_NR_RUNNING, c, ts,
                        (double)(uint32_t)u(&e, TRAK_PB_SchedCpuUtilCfsFtraceEvent_nr_running));
    }
    return 1;
  case TRAK_PB_FtraceEvent_funcgraph_entry:
    dev_read(imp, ev, &e);
    trak__funcgraph(
        imp, cpu, ts, pid, 1,
        trak__ftrace_ksym_name(imp, seq, u(&e, TRAK_PB_FuncgraphEntryFtraceEvent_func)));
    return 1;
  case TRAK_PB_FtraceEvent_funcgraph_exit:
    dev_read(imp, ev, &e);
    trak__funcgraph(imp, cpu, ts, pid, 0,
                    trak__ftrace_ksym_name(imp, seq, u(&e, TRAK_PB_FuncgraphExitFtraceEvent_func)));
    return 1;
  case TRAK_PB_FtraceEvent_ion_stat:
    dev_read(imp, ev, &e);
    trak__ion_stat(imp, cpu, ts, pid, 0, (uint32_t)u(&e, TRAK_PB_IonStatFtraceEvent_buffer_id),
                   (int64_t)u(&e, TRAK_PB_IonStatFtraceEvent_len),
                   u(&e, TRAK_PB_IonStatFtraceEvent_total_allocated));
    return 1;
  case TRAK_PB_FtraceEvent_dma_heap_stat:
    dev_read(imp, ev, &e);
    trak__ion_stat(imp, cpu, ts, pid, 1, u(&e, TRAK_PB_DmaHeapStatFtraceEvent_inode),
                   (int64_t)u(&e, TRAK_PB_DmaHeapStatFtraceEvent_len),
                   u(&e, TRAK_PB_DmaHeapStatFtraceEvent_total_allocated));
    return 1;
  case TRAK_PB_FtraceEvent_cma_alloc_start:
  case TRAK_PB_FtraceEvent_mm_alloc_contig_migrate_range_info:
  case TRAK_PB_FtraceEvent_cma_alloc_finish:
  case TRAK_PB_FtraceEvent_cma_alloc_info:
    dev_read(imp, ev, &e);
    cma(imp, cpu, ts, pid, ev->number, &e);
    return 1;
  case TRAK_PB_FtraceEvent_kgsl_adreno_cmdbatch_queued:
    dev_read(imp, ev, &e);
    trak__cmdbatch_queued(imp, cpu, ts, pid,
                          (uint32_t)u(&e, TRAK_PB_KgslAdrenoCmdbatchQueuedFtraceEvent_id));
    return 1;
  case TRAK_PB_FtraceEvent_kgsl_adreno_cmdbatch_sync:
    dev_read(imp, ev, &e);
    trak__cmdbatch_sync(imp, ts,
                        (uint32_t)u(&e, TRAK_PB_KgslAdrenoCmdbatchSyncFtraceEvent_timestamp),
                        u(&e, TRAK_PB_KgslAdrenoCmdbatchSyncFtraceEvent_ticks));
    return 1;
  case TRAK_PB_FtraceEvent_kgsl_adreno_cmdbatch_retired: {
    uint32_t name, set = trak__ftrace_typed_set(imp, seq, ev, &name);
    trak_fraw raw = {pid, name, set, flags};
    dev_read(imp, ev, &e);
    trak__cmdbatch_retired(
        imp, cpu, ts, &raw, (uint32_t)u(&e, TRAK_PB_KgslAdrenoCmdbatchRetiredFtraceEvent_timestamp),
        (uint32_t)u(&e, TRAK_PB_KgslAdrenoCmdbatchRetiredFtraceEvent_id),
        (uint32_t)u(&e, TRAK_PB_KgslAdrenoCmdbatchRetiredFtraceEvent_prio),
        u(&e, TRAK_PB_KgslAdrenoCmdbatchRetiredFtraceEvent_start),
        u(&e, TRAK_PB_KgslAdrenoCmdbatchRetiredFtraceEvent_retire));
    return 1;
  }
  case TRAK_PB_FtraceEvent_thermal_exynos_acpm_bulk: /* at the time the event holds */
    dev_read(imp, ev, &e);
    if (!(e.has >> TRAK_PB_ThermalExynosAcpmBulkFtraceEvent_timestamp & 1)) {
      trak__report(imp, TRAK_STAT_FTRACE_BUNDLE_TOKENIZER_ERRORS,
                   "thermal_exynos_acpm_bulk on cpu %u has no timestamp", cpu);
      return 1;
    }
    trak__acpm_thermal(imp, (int64_t)u(&e, TRAK_PB_ThermalExynosAcpmBulkFtraceEvent_timestamp),
                       (uint32_t)u(&e, TRAK_PB_ThermalExynosAcpmBulkFtraceEvent_tz_id),
                       (double)(uint32_t)u(&e, TRAK_PB_ThermalExynosAcpmBulkFtraceEvent_current_temp),
                       (double)(uint32_t)u(&e, TRAK_PB_ThermalExynosAcpmBulkFtraceEvent_cdev_state));
    return 1;
  case TRAK_PB_FtraceEvent_thermal_exynos_acpm_high_overhead:
    dev_read(imp, ev, &e);
    trak__acpm_thermal(
        imp, ts, (uint32_t)u(&e, TRAK_PB_ThermalExynosAcpmHighOverheadFtraceEvent_tz_id),
        (double)(uint32_t)u(&e, TRAK_PB_ThermalExynosAcpmHighOverheadFtraceEvent_current_temp),
        (double)(uint32_t)u(&e, TRAK_PB_ThermalExynosAcpmHighOverheadFtraceEvent_cdev_state));
    return 1;
  case TRAK_PB_FtraceEvent_netif_receive_skb:
    dev_read(imp, ev, &e);
    s = bytes(&e, TRAK_PB_NetifReceiveSkbFtraceEvent_name, &n);
    trak__net_bytes(imp, cpu, ts, 0, s, n, (uint32_t)u(&e, TRAK_PB_NetifReceiveSkbFtraceEvent_len));
    return 1;
  case TRAK_PB_FtraceEvent_net_dev_xmit: /* a packet the driver took (rc 0) */
    dev_read(imp, ev, &e);
    if ((int32_t)u(&e, TRAK_PB_NetDevXmitFtraceEvent_rc) != 0) return 1;
    s = bytes(&e, TRAK_PB_NetDevXmitFtraceEvent_name, &n);
    trak__net_bytes(imp, cpu, ts, 1, s, n, (uint32_t)u(&e, TRAK_PB_NetDevXmitFtraceEvent_len));
    return 1;
  case TRAK_PB_FtraceEvent_inet_sock_set_state:
    dev_read(imp, ev, &e);
    trak__inet_sock_state(imp, cpu, ts, pid, u(&e, TRAK_PB_InetSockSetStateFtraceEvent_skaddr),
                          (uint32_t)u(&e, TRAK_PB_InetSockSetStateFtraceEvent_protocol),
                          (uint32_t)u(&e, TRAK_PB_InetSockSetStateFtraceEvent_family),
                          (int32_t)u(&e, TRAK_PB_InetSockSetStateFtraceEvent_newstate),
                          (int32_t)u(&e, TRAK_PB_InetSockSetStateFtraceEvent_oldstate),
                          (uint32_t)u(&e, TRAK_PB_InetSockSetStateFtraceEvent_sport),
                          (uint32_t)u(&e, TRAK_PB_InetSockSetStateFtraceEvent_dport));
    return 1;
  case TRAK_PB_FtraceEvent_tcp_retransmit_skb:
    dev_read(imp, ev, &e);
    trak__tcp_retransmit(imp, ts, (uint32_t)u(&e, TRAK_PB_TcpRetransmitSkbFtraceEvent_sport),
                         (uint32_t)u(&e, TRAK_PB_TcpRetransmitSkbFtraceEvent_dport));
    return 1;
  case TRAK_PB_FtraceEvent_napi_gro_receive_entry:
    dev_read(imp, ev, &e);
    s = bytes(&e, TRAK_PB_NapiGroReceiveEntryFtraceEvent_name, &n);
    trak__napi_gro_entry(imp, cpu, ts, s, n,
                         (uint32_t)u(&e, TRAK_PB_NapiGroReceiveEntryFtraceEvent_len));
    return 1;
  case TRAK_PB_FtraceEvent_napi_gro_receive_exit:
    dev_read(imp, ev, &e);
    trak__napi_gro_exit(imp, cpu, ts, (int32_t)u(&e, TRAK_PB_NapiGroReceiveExitFtraceEvent_ret));
    return 1;
  case TRAK_PB_FtraceEvent_kfree_skb:
    dev_read(imp, ev, &e);
    trak__kfree_skb(imp, cpu, ts, (uint32_t)u(&e, TRAK_PB_KfreeSkbFtraceEvent_protocol));
    return 1;
  case TRAK_PB_FtraceEvent_ufshcd_command:
    dev_read(imp, ev, &e);
    trak__ufs_command(imp, ts, (uint32_t)u(&e, TRAK_PB_UfshcdCommandFtraceEvent_doorbell),
                      (uint32_t)u(&e, TRAK_PB_UfshcdCommandFtraceEvent_str_t),
                      (uint32_t)u(&e, TRAK_PB_UfshcdCommandFtraceEvent_tag),
                      (uint32_t)u(&e, TRAK_PB_UfshcdCommandFtraceEvent_opcode),
                      (uint32_t)u(&e, TRAK_PB_UfshcdCommandFtraceEvent_group_id));
    return 1;
  case TRAK_PB_FtraceEvent_ufshcd_clk_gating:
    dev_read(imp, ev, &e);
    trak__ufs_clk_gating(imp, ts, (int32_t)u(&e, TRAK_PB_UfshcdClkGatingFtraceEvent_state));
    return 1;
  case TRAK_PB_FtraceEvent_android_fs_dataread_start:
    dev_read(imp, ev, &e);
    s = bytes(&e, TRAK_PB_AndroidFsDatareadStartFtraceEvent_pathbuf, &n);
    trak__android_fs_read(imp, cpu, ts, pid, 0,
                          u(&e, TRAK_PB_AndroidFsDatareadStartFtraceEvent_ino),
                          (int64_t)u(&e, TRAK_PB_AndroidFsDatareadStartFtraceEvent_offset),
                          (int32_t)u(&e, TRAK_PB_AndroidFsDatareadStartFtraceEvent_bytes),
                          trak__strpool_intern(&imp->tables->strings, s, n));
    return 1;
  case TRAK_PB_FtraceEvent_android_fs_dataread_end:
    dev_read(imp, ev, &e);
    trak__android_fs_read(imp, cpu, ts, pid, 1, u(&e, TRAK_PB_AndroidFsDatareadEndFtraceEvent_ino),
                          (int64_t)u(&e, TRAK_PB_AndroidFsDatareadEndFtraceEvent_offset),
                          (int32_t)u(&e, TRAK_PB_AndroidFsDatareadEndFtraceEvent_bytes), 0);
    return 1;
  case TRAK_PB_FtraceEvent_f2fs_iostat:
  case TRAK_PB_FtraceEvent_f2fs_iostat_latency:
    dev_read(imp, ev, &e);
    iostat(imp, ts, ev->number == TRAK_PB_FtraceEvent_f2fs_iostat_latency, &e);
    return 1;
  case TRAK_PB_FtraceEvent_virtio_gpu_cmd_queue: /* the two share their fields */
  case TRAK_PB_FtraceEvent_virtio_gpu_cmd_response:
    dev_read(imp, ev, &e);
    s = bytes(&e, TRAK_PB_VirtioGpuCmdQueueFtraceEvent_name, &n);
    trak__virtgpu_cmd(imp, cpu, ts, ev->number == TRAK_PB_FtraceEvent_virtio_gpu_cmd_response, s,
                      n, (uint32_t)u(&e, TRAK_PB_VirtioGpuCmdQueueFtraceEvent_seqno),
                      (uint32_t)u(&e, TRAK_PB_VirtioGpuCmdQueueFtraceEvent_type),
                      u(&e, TRAK_PB_VirtioGpuCmdQueueFtraceEvent_fence_id),
                      (uint32_t)u(&e, TRAK_PB_VirtioGpuCmdQueueFtraceEvent_num_free));
    return 1;
  default:
    return 0;
  }
}
