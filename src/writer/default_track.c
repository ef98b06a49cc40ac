/*
** This file holds the writer's use of the sequence's default track: an event on the default
** track omits its track_uuid (6 of a begin/end event's 22.6 bytes, since uuids are drawn in
** [2^28, 2^35) so that writers' traces can be concatenated). The default is per packet
** sequence and each writer has its own, so concatenated traces keep their defaults apart.
**
** The default follows the runs of events on one track: an event packet on a track other than
** the default names it by uuid (6 bytes) or makes it the default in its own packet with
** TracePacketDefaults.track_event_defaults.track_uuid (11 bytes, the event then omits it). Once
** a sequence has defaults, every packet carries sequence_flags (2 bytes; see below), which
** packets with interned names have anyway but ENDs and counter values do not. A switch costs
** at most 11 + 2 bytes per packet of the run against 6 per packet, so it pays from runs of 3
** packets (TRAK__RUN_WORTH_A_SWITCH) and may lose on runs of 2 (a COMPLETE slice per turn on
** each of several threads is an END and a BEGIN: 13 bytes against 12). A run therefore
** switches at once when the track's previous run was 3 packets or more, else at its third
** packet. A track seen once now and then (a counter sampled between the slices of a thread)
** never takes the default from the track around it; tracks that alternate at every event or
** every two never switch, and cost what they did before defaults.
**
** Readers (trak's processor, Perfetto's) apply a packet's defaults before its event and keep
** the other incremental state (interned strings), so a switch needs no clearing. Perfetto's
** trace_packet.proto asks that every packet after the first defaults carry
** SEQ_NEEDS_INCREMENTAL_STATE, and the writer does so (events.c, writer.c).
*/
#include "writer/writer_internal.h"

uint8_t *trak__wr_put_default_track(uint8_t *p, uint64_t uuid) {
  p = trak_pb_write_tag(p, TRAK_PB_TracePacket_trace_packet_defaults, TRAK_PB_WIRE_LEN) + 1;
  uint8_t *defaults = p;
  p = trak_pb_write_tag(p, TRAK_PB_TracePacketDefaults_track_event_defaults, TRAK_PB_WIRE_LEN) + 1;
  uint8_t *track_event = p;
  p = trak_pb_write_tag(p, TRAK_PB_TrackEventDefaults_track_uuid, TRAK_PB_WIRE_VARINT);
  p = trak_pb_write_varint(p, uuid);
  track_event[-1] = (uint8_t)(p - track_event);
  defaults[-1] = (uint8_t)(p - defaults);
  return p;
}
