/*
** This file holds two packets of Perfetto's android.power data source, as Perfetto's importer
** reads them. AndroidEnergyEstimationBreakdown: the energy consumers' descriptor, kept in file
** order, then estimates, each a counter on its consumer's track (type
** android_energy_estimation_breakdown, dimension energy_consumer_id, named by the consumer,
** source args consumer_type and ordinal) and one per app (type
** android_energy_estimation_breakdown_per_uid, dimensions energy_consumer_id and uid).
** EntityStateResidency: the entities' states named by index, then the time each spent in a
** state, a counter on its entity_state track (dimensions entity_name and state_name, named
** "Entity residency: <entity> is <state>").
*/
#include <stdio.h>
#include <string.h>

#include "processor/import/proto/proto.h"

/* The state's key of consumer `id`, or of entity `entity`'s state `state`. */
static uint64_t consumer_key(trak_importer *imp, uint64_t id) {
  return trak__mix(trak__mix(0x636f6e73ULL, imp->threads.machine), id);
}
static uint64_t entity_key(trak_importer *imp, uint64_t entity, uint64_t state) {
  return trak__mix(trak__mix(trak__mix(0x656e7479ULL, imp->threads.machine), entity), state);
}

/* Keeps three string ids (or numbers) under `key`; a later descriptor replaces an earlier. */
static void keep(trak_importer *imp, uint64_t key, uint32_t a, uint32_t b, uint32_t c) {
  trak_packet_state *s = trak__packet_state(imp);
  int added;
  *trak__map_put(&s->power, key, 0, &added) = (uint32_t)s->power_names.n / 3 + 1;
  trak_vec_push(s->power_names, a);
  trak_vec_push(s->power_names, b);
  trak_vec_push(s->power_names, c);
}

/* The three values kept under `key`, NULL when none are. */
static const uint32_t *kept(trak_importer *imp, uint64_t key) {
  trak_packet_state *s = trak__packet_state(imp);
  uint32_t *slot = trak__map_get(&s->power, key);
  return slot ? &s->power_names.v[(*slot - 1) * 3] : NULL;
}

/* A message's fields 1 to 4: varints as numbers, the strings `strings` names (bit per field) as
** string ids (an empty one 0); `has` says which fields are there. */
typedef struct four {
  uint32_t has;
  uint64_t v[5];
} four;

static four fields(trak_importer *imp, const uint8_t *data, size_t len, uint32_t strings) {
  trak_pb_decoder dec;
  trak_pb_field f;
  four r = {0, {0}};
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number < 1 || f.number > 4) continue;
    if (f.wire_type == TRAK_PB_WIRE_VARINT)
      r.v[f.number] = f.value;
    else if (f.wire_type == TRAK_PB_WIRE_LEN && (strings >> f.number & 1))
      r.v[f.number] =
          !f.len ? 0 /* NULL, as Perfetto interns "" */
                 : trak__strpool_intern(&imp->tables->strings, (const char *)f.data, f.len);
    else if (f.wire_type != TRAK_PB_WIRE_LEN)
      continue;
    r.has |= 1u << f.number;
  }
  return r;
}

/* One AndroidEnergyConsumer: kept by its id. */
static void consumer(trak_importer *imp, void *arg, const uint8_t *data, size_t len) {
  (void)arg;
  four c =
      fields(imp, data, len,
             1u << TRAK_PB_AndroidEnergyConsumer_type | 1u << TRAK_PB_AndroidEnergyConsumer_name);
  if (!(c.has >> TRAK_PB_AndroidEnergyConsumer_energy_consumer_id & 1)) {
    trak__report(imp, TRAK_STAT_ENERGY_DESCRIPTOR_INVALID, "energy consumer without an id");
    return;
  }
  keep(imp, consumer_key(imp, (uint32_t)c.v[TRAK_PB_AndroidEnergyConsumer_energy_consumer_id]),
       (uint32_t)c.v[TRAK_PB_AndroidEnergyConsumer_name],
       (uint32_t)c.v[TRAK_PB_AndroidEnergyConsumer_type],
       (uint32_t)c.v[TRAK_PB_AndroidEnergyConsumer_ordinal]);
}

/* The descriptor's consumers. */
static void consumer_descriptor(trak_importer *imp, void *arg, const uint8_t *data, size_t len) {
  trak__dec_each(imp, data, len, TRAK_PB_AndroidEnergyConsumerDescriptor_energy_consumers, consumer,
                 arg);
}

void trak__energy_breakdown_packet(trak_importer *imp, trak_packet_ctx *ctx, const uint8_t *data,
                                   size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  four e = fields(imp, data, len, 0);
  if (e.has >> TRAK_PB_AndroidEnergyEstimationBreakdown_energy_consumer_descriptor & 1) {
    trak__dec_each(imp, data, len,
                   TRAK_PB_AndroidEnergyEstimationBreakdown_energy_consumer_descriptor,
                   consumer_descriptor, NULL);
    return;
  }
  uint32_t id = (uint32_t)e.v[TRAK_PB_AndroidEnergyEstimationBreakdown_energy_consumer_id];
  const uint32_t *desc = kept(imp, consumer_key(imp, id));
  if (!(e.has >> TRAK_PB_AndroidEnergyEstimationBreakdown_energy_consumer_id & 1) ||
      !(e.has >> TRAK_PB_AndroidEnergyEstimationBreakdown_energy_uws & 1) || !desc) {
    trak__report(imp, TRAK_STAT_ENERGY_BREAKDOWN_MISSING_VALUES,
                 "energy estimate of consumer %u without energy or descriptor; dropped", id);
    return;
  }
  trak_packet_ctx c = trak__packet_ctx_timed(imp, ctx);
  int made;
  uint32_t track = trak__dim_counter_track(imp, TRAK_TK_ENERGY_BREAKDOWN, id, 0, desc[0], &made);
  if (made) {
    trak_track_info *info = &imp->tracks.info.v[track];
    info->dim_int = (int32_t)id;
    info->scope = desc[1];
    info->rank = (int32_t)desc[2];
  }
  trak__system_counter(imp, &c, track,
                       (double)(int64_t)e.v[TRAK_PB_AndroidEnergyEstimationBreakdown_energy_uws]);
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number != TRAK_PB_AndroidEnergyEstimationBreakdown_per_uid_breakdown ||
        f.wire_type != TRAK_PB_WIRE_LEN)
      continue;
    four u = fields(imp, f.data, f.len, 0);
    uint32_t need = 1u << TRAK_PB_AndroidEnergyEstimationBreakdown_EnergyUidBreakdown_uid |
                    1u << TRAK_PB_AndroidEnergyEstimationBreakdown_EnergyUidBreakdown_energy_uws;
    if ((u.has & need) != need) {
      trak__report(imp, TRAK_STAT_ENERGY_UID_BREAKDOWN_MISSING_VALUES,
                   "per-uid energy of consumer %u without a uid or energy; skipped", id);
      continue;
    }
    uint32_t uid = (uint32_t)u.v[TRAK_PB_AndroidEnergyEstimationBreakdown_EnergyUidBreakdown_uid];
    uint32_t uid_track =
        trak__dim_counter_track(imp, TRAK_TK_ENERGY_BREAKDOWN_PER_UID, id, uid, desc[0], &made);
    if (made) {
      imp->tracks.info.v[uid_track].dim_int = (int32_t)id;
      imp->tracks.info.v[uid_track].lane = uid;
    }
    trak__system_counter(
        imp, &c, uid_track,
        (double)(int64_t)
            u.v[TRAK_PB_AndroidEnergyEstimationBreakdown_EnergyUidBreakdown_energy_uws]);
  }
}

/* One PowerEntityState: its names, kept with its track's name. */
static void entity_state_descriptor(trak_importer *imp, void *arg, const uint8_t *data,
                                    size_t len) {
  (void)arg;
  four d = fields(imp, data, len,
                  1u << TRAK_PB_EntityStateResidency_PowerEntityState_entity_name |
                      1u << TRAK_PB_EntityStateResidency_PowerEntityState_state_name);
  uint32_t need = 1u << TRAK_PB_EntityStateResidency_PowerEntityState_entity_index |
                  1u << TRAK_PB_EntityStateResidency_PowerEntityState_state_index;
  if ((d.has & need) != need) {
    trak__report(imp, TRAK_STAT_ENERGY_DESCRIPTOR_INVALID,
                 "entity state without an entity or state index");
    return;
  }
  trak_strpool *pool = &imp->tables->strings;
  uint32_t entity = (uint32_t)d.v[TRAK_PB_EntityStateResidency_PowerEntityState_entity_name];
  uint32_t state = (uint32_t)d.v[TRAK_PB_EntityStateResidency_PowerEntityState_state_name];
  const char *es = trak__str(pool, entity), *ss = trak__str(pool, state);
  char name[512];
  int n = snprintf(name, sizeof name, "Entity residency: %s is %s", es ? es : "", ss ? ss : "");
  size_t name_len = n < 0 ? 0 : (size_t)n < sizeof name ? (size_t)n : sizeof name - 1;
  keep(imp,
       entity_key(imp, (uint32_t)d.v[TRAK_PB_EntityStateResidency_PowerEntityState_entity_index],
                  (uint32_t)d.v[TRAK_PB_EntityStateResidency_PowerEntityState_state_index]),
       entity, state, trak__strpool_intern(pool, name, name_len));
}

void trak__entity_state_packet(trak_importer *imp, trak_packet_ctx *ctx, const uint8_t *data,
                               size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_each(imp, data, len, TRAK_PB_EntityStateResidency_power_entity_state,
                 entity_state_descriptor, NULL);
  trak_packet_ctx c = trak__packet_ctx_timed(imp, ctx);
  if (!(fields(imp, data, len, 0).has >> TRAK_PB_EntityStateResidency_residency & 1)) {
    trak__report(imp, TRAK_STAT_ENTITY_STATE_RESIDENCY_INVALID,
                 "entity_state_residency packet without residencies");
    return;
  }
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number != TRAK_PB_EntityStateResidency_residency || f.wire_type != TRAK_PB_WIRE_LEN)
      continue;
    four r = fields(imp, f.data, f.len, 0);
    uint32_t entity = (uint32_t)r.v[TRAK_PB_EntityStateResidency_StateResidency_entity_index];
    uint32_t state = (uint32_t)r.v[TRAK_PB_EntityStateResidency_StateResidency_state_index];
    const uint32_t *desc = kept(imp, entity_key(imp, entity, state));
    if (!desc) { /* Perfetto drops the rest of the packet too */
      trak__report(imp, TRAK_STAT_ENTITY_STATE_RESIDENCY_LOOKUP_FAILED,
                   "residency of entity %u state %u, which no descriptor names; dropped", entity,
                   state);
      return;
    }
    int made;
    uint32_t track =
        trak__dim_counter_track(imp, TRAK_TK_ENTITY_STATE, desc[0], desc[1], desc[2], &made);
    if (made) {
      imp->tracks.info.v[track].lane = desc[0];
      imp->tracks.info.v[track].dim_key = desc[1];
    }
    trak__system_counter(
        imp, &c, track,
        (double)r.v[TRAK_PB_EntityStateResidency_StateResidency_total_time_in_state_ms]);
  }
}
