/*
** This file holds the importer's lifetime: the state one import builds (sequences, tracks,
** threads and processes, clocks) from its start with the idle thread to its end.
** Problem accounting is report.c's.
*/
#include <stdlib.h>
#include <string.h>

#include "processor/import/import.h"

void trak__importer_init(trak_importer *imp, trak_tables *tables,
                         const trak_processor_options *opts) {
  memset(imp, 0, sizeof *imp);
  imp->tables = tables;
  if (opts) imp->opts = *opts;
  imp->trace_clock = TRAK_PB_BUILTIN_CLOCK_BOOTTIME;
  imp->range_of_interest_ns = imp->crop_before_ns = INT64_MIN;
  trak_vec_push(imp->aux, 0); /* aux index 0 means "none" */
  trak__threads_init(imp);
}

void trak__importer_free(trak_importer *imp) {
  for (size_t i = 0; i < imp->seqs.n; i++) {
    trak_sequence *seq = imp->seqs.v[i];
    for (int k = 0; k < TRAK_INTERN_KINDS; k++)
      trak__map_free(&seq->interned[k]);
    trak_vec_free(seq->default_extra_uuids);
    trak_vec_free(seq->default_extra_double_uuids);
    trak__map_free(&seq->inc_index);
    free(seq->losses);
    trak_vec_free(seq->inc_values);
    while (seq->head) {
      trak_ev_block *next = seq->head->next;
      trak__block_free(seq->head);
      seq->head = next;
    }
    free(seq);
  }
  trak_vec_free(imp->seqs);
  for (size_t i = 0; i < imp->deferred.n; i++)
    free((void *)imp->deferred.v[i].bytes.data);
  trak_vec_free(imp->deferred);
  for (size_t i = 0; i < imp->tracks.n; i++)
    free(imp->tracks.v[i].open);
  trak_vec_free(imp->tracks);
  for (size_t i = 0; i < imp->clocks.n; i++)
    trak_vec_free(imp->clocks.v[i].pairs);
  trak_vec_free(imp->clocks);
  trak_vec_free(imp->aux);
  trak_vec_free(imp->pending_flows);
  trak_vec_free(imp->pending_passthrough);
  trak_vec_free(imp->import_logs);
  trak_vec_free(imp->android_logs);
  trak_vec_free(imp->json_v1_flow_args);
  trak_vec_free(imp->arg_order);
  trak_vec_free(imp->thread_first);
  trak_vec_free(imp->async_lanes);
  trak_vec_free(imp->source_locs);
  trak_vec_free(imp->traced_buf);
  trak__map_free(&imp->traced_buf_index);
  trak__meta_free(imp);
  trak__callstacks_free(imp);
  trak_vec_free(imp->thread_prev);
  trak_vec_free(imp->owner_args);
  trak_vec_free(imp->name_marks);
  trak_map *maps[] = {&imp->seq_index,    &imp->track_index,        &imp->thread_track_index,
                      &imp->tid_index,    &imp->pid_index,          &imp->clock_index,
                      &imp->flows,        &imp->arg_sets,           &imp->debug_keys,
                      &imp->spill_lanes,  &imp->json_v1_flow_ids,   &imp->async_roots,
                      &imp->async_sets,   &imp->legacy_async_roots, &imp->thread_uuid,
                      &imp->process_uuid, &imp->process_name_prio,  &imp->thread_name_prio};
  for (size_t i = 0; i < sizeof maps / sizeof *maps; i++)
    trak__map_free(maps[i]);
  free(imp->scratch);
  memset(imp, 0, sizeof *imp);
}
