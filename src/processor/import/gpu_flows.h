/*
** GPU correlation flows (gpu_flows.c): the flows Perfetto's GPU tracker draws between track
** event slices and GPU render stage slices that share an event_id, and between render stages
** one of which waited on the other. The tokenizer notes each packet's ids; the parse phase,
** as each slice is made, links it to the slices already made (flows with no trace_id).
*/
#ifndef TRAK_PROCESSOR_IMPORT_GPU_FLOWS_H
#define TRAK_PROCESSOR_IMPORT_GPU_FLOWS_H

#include <stddef.h>
#include <stdint.h>

typedef struct trak_importer trak_importer;
struct trak_gpu_flows;

/* Notes the render stage event of packet `pkt`: its event_id and the ids it waited on
** (event_wait_ids, `n_waits` of them). Can't fail. */
void trak__gpu_flows_note_stage(trak_importer *imp, uint32_t pkt, uint64_t event_id,
                                const uint64_t *waits, size_t n_waits);
/* Notes the track event of packet `pkt`: the GpuCorrelation's render stage ids it submitted
** and waited on (`n_sub` and `n_wait` of them). Can't fail. */
void trak__gpu_flows_note_event(trak_importer *imp, uint32_t pkt, const uint64_t *sub,
                                size_t n_sub, const uint64_t *wait, size_t n_wait);
/* Parse phase: slice `slice`, just made from the event of packet `pkt`, takes the flows its
** packet's note gives (none without a note). Can't fail. */
void trak__gpu_flows_slice(trak_importer *imp, uint32_t pkt, uint32_t slice);
/* Frees imp->gpu_flows. */
void trak__gpu_flows_free(trak_importer *imp);

#endif /* TRAK_PROCESSOR_IMPORT_GPU_FLOWS_H */
