/*
** This file holds track paths of the tabular event format: `process 1234 "app"/thread 5678
** "main"`, `Root/Parent A/Child A1`, `process 1/async "requests"`. Each path resolves to a
** writer track, declaring the missing tracks of the path (parents first) on first use; a
** cache keyed by the exact path text makes repeated rows cheap.
*/
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "writer/events_internal.h"
#include "writer/writer_internal.h"

#define MAX_SEGMENTS 32

/* One parsed path segment. */
typedef struct segment {
  enum { SEG_CUSTOM, SEG_ASYNC, SEG_PROCESS, SEG_THREAD } kind;
  int64_t id;     /* pid or tid */
  char name[256]; /* empty when absent */
} segment;

/* A track some path declared: what it is below which parent. */
typedef struct node {
  trak_writer_track parent, handle;
  int kind; /* SEG_*; custom, async and counter tracks are told apart by name only */
  int64_t id;
  int32_t pid; /* of a process, for threads below it */
  char *name;
} node;

typedef struct cached {
  char *path;
  trak_writer_track handle;
} cached;

struct trak__paths {
  node *nodes;
  size_t n_nodes, cap_nodes;
  cached *cache; /* open addressing on the path text */
  size_t n_cache, cap_cache;
};

trak__paths *trak__wr_paths_new(void) {
  return calloc(1, sizeof(trak__paths));
}

void trak__wr_paths_free(trak__paths *p) {
  if (!p) return;
  for (size_t i = 0; i < p->n_nodes; i++)
    free(p->nodes[i].name);
  for (size_t i = 0; i < p->cap_cache; i++)
    free(p->cache[i].path);
  free(p->nodes);
  free(p->cache);
  free(p);
}

static uint64_t hash_text(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++)
    h = (h ^ (uint8_t)*s) * 1099511628211ull;
  return h;
}

static trak_writer_track cache_get(const trak__paths *p, const char *path) {
  if (!p->cap_cache) return 0;
  for (size_t i = hash_text(path) & (p->cap_cache - 1); p->cache[i].path;
       i = (i + 1) & (p->cap_cache - 1))
    if (!strcmp(p->cache[i].path, path)) return p->cache[i].handle;
  return 0;
}

/* Remembers path -> handle; a failure to allocate only costs speed later. */
static void cache_put(trak__paths *p, const char *path, trak_writer_track handle) {
  if ((p->n_cache + 1) * 2 > p->cap_cache) {
    size_t cap = p->cap_cache ? p->cap_cache * 2 : 64;
    cached *c = calloc(cap, sizeof *c);
    if (!c) return;
    for (size_t i = 0; i < p->cap_cache; i++) {
      if (!p->cache[i].path) continue;
      size_t j = hash_text(p->cache[i].path) & (cap - 1);
      while (c[j].path)
        j = (j + 1) & (cap - 1);
      c[j] = p->cache[i];
    }
    free(p->cache);
    p->cache = c;
    p->cap_cache = cap;
  }
  char *copy = strdup(path);
  if (!copy) return;
  size_t j = hash_text(path) & (p->cap_cache - 1);
  while (p->cache[j].path)
    j = (j + 1) & (p->cap_cache - 1);
  p->cache[j] = (cached){copy, handle};
  p->n_cache++;
}

/* Reads a quoted ("..." with \" and \\) or bare (up to '/', trimmed) name at *s into out
** (`size` bytes). Returns 0, or TRAK_EFORMAT for an unterminated or over-long name. */
static int parse_name(const char **s, char *out, size_t size, trak_error *err) {
  const char *p = *s;
  size_t n = 0;
  if (*p == '"') {
    for (p++; *p && *p != '"'; p++) {
      if (*p == '\\' && (p[1] == '"' || p[1] == '\\')) p++;
      if (n + 1 == size)
        return trak_error_set(err, TRAK_EFORMAT, "track name longer than %zu bytes", size - 1);
      out[n++] = *p;
    }
    if (*p != '"')
      return trak_error_set(err, TRAK_EFORMAT, "unterminated quoted name in track path");
    p++;
  } else {
    const char *start = p;
    while (*p && *p != '/')
      p++;
    const char *e = p;
    while (e > start && isspace((unsigned char)e[-1]))
      e--;
    n = (size_t)(e - start);
    if (n >= size)
      return trak_error_set(err, TRAK_EFORMAT, "track name longer than %zu bytes", size - 1);
    memcpy(out, start, n);
  }
  out[n] = 0;
  *s = p;
  return 0;
}

/* True if *s starts with `word` followed by a space; then skips both. */
static int keyword(const char **s, const char *word) {
  size_t n = strlen(word);
  if (strncmp(*s, word, n) || !isspace((unsigned char)(*s)[n])) return 0;
  const char *p = *s + n;
  while (isspace((unsigned char)*p))
    p++;
  if ((!strcmp(word, "process") || !strcmp(word, "thread")) && !isdigit((unsigned char)*p) &&
      *p != '-')
    return 0;
  *s = p;
  return 1;
}

/* Parses "seg/seg/..." into segs. Returns the count or a negative code. */
static int parse_path(const char *path, segment *segs, trak_error *err) {
  const char *s = path;
  int n = 0;
  for (;;) {
    while (isspace((unsigned char)*s))
      s++;
    if (n == MAX_SEGMENTS)
      return trak_error_set(err, TRAK_EFORMAT, "track path has more than %d segments",
                            MAX_SEGMENTS);
    segment *g = &segs[n];
    memset(g, 0, sizeof *g);
    int is_process = keyword(&s, "process");
    if (is_process || keyword(&s, "thread")) {
      g->kind = is_process ? SEG_PROCESS : SEG_THREAD;
      g->id = strtoll(s, (char **)&s, 10);
      while (*s == ' ' || *s == '\t')
        s++;
      int rc = *s && *s != '/' ? parse_name(&s, g->name, sizeof g->name, err) : 0;
      if (rc) return rc;
    } else {
      if (keyword(&s, "async")) g->kind = SEG_ASYNC;
      int rc = parse_name(&s, g->name, sizeof g->name, err);
      if (rc) return rc;
      if (!g->name[0])
        return trak_error_set(err, TRAK_EFORMAT, "empty segment %d in track path '%s'", n + 1,
                              path);
    }
    while (isspace((unsigned char)*s))
      s++;
    n++;
    if (!*s) return n;
    if (*s != '/')
      return trak_error_set(err, TRAK_EFORMAT,
                            "unexpected '%c' in track path '%s' (segments are separated by '/')",
                            *s, path);
    s++;
  }
}

/* Unit text of a counter row: ns, count, bytes, or any other text as a free-form unit name. */
static trak_writer_unit parse_unit(const char *unit, const char **unit_name) {
  *unit_name = NULL;
  if (!unit || !*unit) return TRAK_WRITER_UNIT_UNSPECIFIED;
  if (!strcmp(unit, "ns") || !strcmp(unit, "time_ns")) return TRAK_WRITER_UNIT_TIME_NS;
  if (!strcmp(unit, "count")) return TRAK_WRITER_UNIT_COUNT;
  if (!strcmp(unit, "bytes") || !strcmp(unit, "size_bytes")) return TRAK_WRITER_UNIT_SIZE_BYTES;
  *unit_name = unit;
  return TRAK_WRITER_UNIT_UNSPECIFIED;
}

/* Finds the node for segment g below parent. */
static node *find_node(trak__paths *p, trak_writer_track parent, const segment *g) {
  for (size_t i = 0; i < p->n_nodes; i++) {
    node *n = &p->nodes[i];
    if (n->parent != parent) continue;
    int by_id = g->kind == SEG_PROCESS || g->kind == SEG_THREAD;
    if (by_id ? n->kind == (int)g->kind && n->id == g->id
              : n->kind != SEG_PROCESS && n->kind != SEG_THREAD && !strcmp(n->name, g->name))
      return n;
  }
  return NULL;
}

/* Declares the track of segment g below parent (a counter track when `counter`). */
static int declare(trak__paths *p, trak_writer *w, trak_writer_track parent, int32_t pid,
                   const segment *g, int counter, const char *unit, trak_writer_track *out,
                   trak_error *err) {
  if (p->n_nodes == p->cap_nodes) {
    size_t cap = p->cap_nodes ? p->cap_nodes * 2 : 32;
    node *nodes = realloc(p->nodes, cap * sizeof *nodes);
    if (!nodes) return trak_error_set(err, TRAK_ENOMEM, "out of memory");
    p->nodes = nodes;
    p->cap_nodes = cap;
  }
  trak_writer_track_info info = {
      .parent = parent, .name = g->kind == SEG_PROCESS || g->kind == SEG_THREAD ? NULL : g->name};
  const char *os_name = g->name[0] ? g->name : NULL;
  int rc;
  if (g->kind == SEG_PROCESS) {
    rc = trak_writer_add_process(w, (int32_t)g->id, os_name, &info, out);
  } else if (g->kind == SEG_THREAD) {
    rc = trak_writer_add_thread(w, pid ? pid : (int32_t)g->id, g->id, os_name, &info, out);
  } else if (counter) {
    const char *unit_name;
    trak_writer_unit u = parse_unit(unit, &unit_name);
    rc = trak_writer_add_counter_track(w, &info, u, unit_name, out);
  } else {
    if (g->kind == SEG_ASYNC) info.flags = TRAK_WRITER_AUTO_SIBLINGS;
    rc = trak_writer_add_track(w, &info, out);
  }
  if (rc) return trak_error_set(err, rc, "%s", trak_writer_last_error(w)->message);
  node *n = &p->nodes[p->n_nodes];
  *n = (node){.parent = parent,
              .handle = *out,
              .kind = g->kind,
              .id = g->id,
              .pid = g->kind == SEG_PROCESS ? (int32_t)g->id : pid,
              .name = strdup(g->name)};
  if (!n->name) return trak_error_set(err, TRAK_ENOMEM, "out of memory");
  p->n_nodes++;
  return 0;
}

int trak__wr_paths_resolve(trak__paths *p, trak_writer *w, const char *path, int counter,
                           const char *unit, trak_writer_track *out, trak_error *err) {
  if ((*out = cache_get(p, path))) return 0;
  segment segs[MAX_SEGMENTS];
  int n = parse_path(path, segs, err);
  if (n < 0) return n;
  if (counter && (segs[n - 1].kind == SEG_PROCESS || segs[n - 1].kind == SEG_THREAD))
    return trak_error_set(
        err, TRAK_EFORMAT,
        "a counter needs a named track at the end of its path, as in '%s/\"memory\"'", path);
  trak_writer_track parent = 0;
  int32_t pid = 0;
  for (int i = 0; i < n; i++) {
    node *found = find_node(p, parent, &segs[i]);
    trak_writer_track h;
    if (found) {
      h = found->handle;
      pid = found->pid;
    } else {
      int rc = declare(p, w, parent, pid, &segs[i], counter && i == n - 1, unit, &h, err);
      if (rc) return rc;
      if (segs[i].kind == SEG_PROCESS) pid = (int32_t)segs[i].id;
    }
    parent = h;
  }
  *out = parent;
  cache_put(p, path, parent);
  return 0;
}
