/*
** This file holds the tracks of JSON async slices (b, e, n) as Perfetto's track compressor
** assigns them. The tokenizer gives each async id (category and id, and the process for an
** id2.local one) a track of its own: its "cookie". In the parse phase each cookie is mapped to
** an output track: cookies whose first event had the same name (in the same process, for
** local ids) form a set, and a cookie takes a track of its set that no other cookie holds
** open (every begin ended), or a new one. So a name's async slices reuse a few tracks rather
** than one per id, as in Perfetto.
*/
#include "processor/import/import.h"

/* The output track for a new lane of the set whose cookie is `cookie`. */
static uint32_t lane_track(trak_importer *imp, uint32_t cookie, uint32_t root_name, uint32_t lane) {
  const trak_track_info *c = &imp->tracks.v[cookie];
  uint32_t upid = c->is_process ? c->upid : TRAK_NULL_U32;
  const char *type = c->type;
  uint32_t src_upid = c->src_upid, scope = c->scope;
  uint32_t track = trak__track_new(imp, 0);
  trak_track_info *info = &imp->tracks.v[track];
  info->described = 1;
  info->type = type;
  info->name = root_name;
  info->lane = lane, info->src_upid = src_upid, info->scope = scope;
  if (upid != TRAK_NULL_U32) info->is_process = 1, info->upid = upid;
  return track;
}

uint32_t trak__async_track(trak_importer *imp, uint32_t cookie, uint32_t type, uint32_t name) {
  /* The set: the cookie's root name (its first event's, in parse order) and its process. */
  int added;
  uint32_t *root = trak__map_put(&imp->async_roots, cookie, name, &added);
  const trak_track_info *c = &imp->tracks.v[cookie];
  uint64_t key = (uint64_t)*root << 32 | (c->is_process ? c->upid + 1 : 0);
  uint32_t *head = trak__map_put(&imp->async_sets, key, TRAK_NULL_U32, &added);
  /* The cookie's lane, else a lane no cookie holds open (adopted), else a new one. */
  uint32_t found = TRAK_NULL_U32, idle = TRAK_NULL_U32, last = TRAK_NULL_U32, n_lanes = 0;
  for (uint32_t l = *head; l != TRAK_NULL_U32; l = imp->async_lanes.v[l].next, n_lanes++) {
    const trak_async_lane *ln = &imp->async_lanes.v[l];
    if (ln->cookie == cookie) {
      found = l;
      break;
    }
    if (ln->nest == 0 && idle == TRAK_NULL_U32) idle = l;
    last = l;
  }
  if (found == TRAK_NULL_U32 && idle != TRAK_NULL_U32) {
    found = idle;
    imp->async_lanes.v[found].cookie = cookie;
  }
  if (found == TRAK_NULL_U32) {
    uint32_t track = lane_track(imp, cookie, *root, n_lanes);
    found = (uint32_t)imp->async_lanes.n;
    trak_vec_push(imp->async_lanes, ((trak_async_lane){cookie, 0, track, TRAK_NULL_U32}));
    if (last == TRAK_NULL_U32)
      *head = found;
    else
      imp->async_lanes.v[last].next = found;
  }
  trak_async_lane *ln = &imp->async_lanes.v[found];
  if (type == TRAK_EV_BEGIN) ln->nest++;
  if (type == TRAK_EV_END && ln->nest) ln->nest--;
  return ln->track;
}
