/*
** This file holds the tracks Perfetto's track compressor assigns: those of JSON async slices
** (b, e, n), of protobuf legacy async events, and of descriptor tracks merged by name with
** their siblings. The tokenizer gives each async id (category and id, and the process for a
** local one), and each descriptor, a track of its own: its "cookie". In the parse phase each
** cookie is mapped to an output track: cookies whose first event had the same name (in the same
** process, for local ids, and scope, for legacy ids) form a set, as do descriptors of one name
** and parent; a cookie takes a track of its set that no other cookie holds open (every begin
** ended), or a new one. So a name's slices reuse a few tracks rather than one per id, as in
** Perfetto. A descriptor set's new track is the descriptor's own, which describes it.
*/
#include "processor/import/importer.h"

/* The output track for a new lane of the set whose cookie is `cookie`. */
static uint32_t lane_track(trak_importer *imp, uint32_t cookie, uint32_t root_name, uint32_t lane) {
  trak_track_info *c = &imp->tracks.info.v[cookie];
  if (!c->kind && !c->lane_taken) { /* a descriptor: its own track */
    c->lane_taken = 1;
    c->lane = lane;
    return cookie;
  }
  if (!c->kind) {
    /* Its own track serves a lane another cookie adopted while it was idle: the new lane is a
    ** copy of the descriptor (Perfetto's lanes of one descriptor share its uuid and args), with
    ** no slices, stack or first use of its own yet. */
    uint32_t track = trak__track_new(imp, 0); /* (moves the tracks: c is stale) */
    trak_track_info copy = imp->tracks.info.v[cookie];
    copy.lane = lane;
    copy.compressed = 0, copy.parse_plain = 0;
    copy.open = NULL, copy.open_depth = copy.open_cap = 0, copy.closed_on_stack = 0;
    copy.open_only = 0;
    copy.pending_flow = 0, copy.state_row = 0;
    copy.first_ts = INT64_MAX, copy.first_order = 0, copy.first_name = 0;
    imp->tracks.info.v[track] = copy;
    return track;
  }
  uint32_t upid = c->is_process ? c->upid : TRAK_NULL_U32;
  uint8_t kind = c->kind;
  uint32_t src_upid = c->src_upid, scope = c->scope;
  /* A legacy id's track is named by the cookie that made it; a JSON id's by its root name. */
  uint32_t name = c->root_name ? c->name : root_name, root = c->root_name;
  uint32_t track = trak__track_new(imp, 0); /* (moves the tracks: c is stale) */
  trak_track_info *info = &imp->tracks.info.v[track];
  info->described = 1;
  info->kind = kind;
  info->name = name;
  info->root_name = root;
  info->lane = lane, info->src_upid = src_upid, info->scope = scope;
  if (upid != TRAK_NULL_U32) info->is_process = 1, info->upid = upid;
  return track;
}

/* The key of a descriptor cookie's set: its parent and name (top bit set: never an id set's). */
static uint64_t merged_key(const trak_track_info *c) {
  uint64_t h = (c->has_parent ? c->parent_uuid : 0) ^ 0x6d657267ULL;
  h = (h ^ (h >> 31)) * 0x9e3779b97f4a7c15ULL;
  h = (h ^ c->name) * 0xff51afd7ed558ccdULL;
  return h | 1ULL << 63;
}

uint32_t trak__async_track(trak_importer *imp, uint32_t cookie, uint32_t type, uint32_t name) {
  int added;
  const trak_track_info *c = &imp->tracks.info.v[cookie];
  uint32_t root;
  uint64_t key;
  if (!c->kind) {
    root = c->name;
    key = merged_key(c);
  } else {
    /* An id's set: the root name (for legacy ids the id's first in file order, else its first
    ** event's in parse order), its process, and its scope. */
    uint32_t *first = trak__map_put(&imp->async.roots, cookie, name, &added);
    root = c->root_name ? c->root_name : *first;
    key = (uint64_t)root << 32 | (c->is_process ? c->upid + 1 : 0);
    if (c->scope) key = (key ^ (uint64_t)c->scope * 0x9e3779b97f4a7c15ULL) & ~(1ULL << 63);
  }
  uint32_t *head = trak__map_put(&imp->async.sets, key, TRAK_NULL_U32, &added);
  /* The cookie's lane, else a lane no cookie holds open (adopted), else a new one. */
  uint32_t found = TRAK_NULL_U32, idle = TRAK_NULL_U32, last = TRAK_NULL_U32, n_lanes = 0;
  for (uint32_t l = *head; l != TRAK_NULL_U32; l = imp->async.lanes.v[l].next, n_lanes++) {
    const trak_async_lane *ln = &imp->async.lanes.v[l];
    if (ln->cookie == cookie) {
      found = l;
      break;
    }
    if (ln->nest == 0 && idle == TRAK_NULL_U32) idle = l;
    last = l;
  }
  if (found == TRAK_NULL_U32 && idle != TRAK_NULL_U32) {
    found = idle;
    imp->async.lanes.v[found].cookie = cookie;
  }
  if (found == TRAK_NULL_U32) {
    uint32_t track = lane_track(imp, cookie, root, n_lanes);
    found = (uint32_t)imp->async.lanes.n;
    trak_vec_push(imp->async.lanes, ((trak_async_lane){cookie, 0, track, TRAK_NULL_U32}));
    if (last == TRAK_NULL_U32)
      *head = found;
    else
      imp->async.lanes.v[last].next = found;
  }
  trak_async_lane *ln = &imp->async.lanes.v[found];
  if (type == TRAK_EV_BEGIN) ln->nest++;
  if (type == TRAK_EV_END && ln->nest) ln->nest--;
  return ln->track;
}

void trak__async_tracks_free(trak_async_tracks *a) {
  trak__map_free(&a->roots);
  trak__map_free(&a->legacy_roots);
  trak__map_free(&a->sets);
  trak_vec_free(a->lanes);
}
