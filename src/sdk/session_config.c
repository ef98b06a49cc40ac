/*
** This file holds a session's configuration: the copies a session keeps of its config struct
** (category and tag globs, output path, the data sources with their serialized configs and
** interceptors), and the serialized TraceConfig (binary or text) read into such a config.
*/
#include <stdlib.h>
#include <string.h>

#include "sdk/backend.h"
#include "trak/pbtxt.h"

static char **list_copy(const char *const *list) {
  size_t n = 0;
  while (list && list[n])
    n++;
  char **out = calloc(n + 1, sizeof *out);
  for (size_t i = 0; out && i < n; i++)
    out[i] = strdup(list[i]);
  return out;
}

static void list_free(char **list) {
  for (size_t i = 0; list && list[i]; i++)
    free(list[i]);
  free(list);
}

static void dss_free(trak__ds_cfg *dss, size_t n) {
  for (size_t i = 0; i < n; i++) {
    free(dss[i].name);
    free(dss[i].config);
    free(dss[i].icpt_name);
    free(dss[i].icpt_config);
  }
  free(dss);
}

void trak__session_config_free(trak_session *s) {
  for (int i = 0; i < 4; i++)
    list_free(s->lists[i]);
  free(s->output_path);
  dss_free(s->dss, s->ndss);
}

static uint8_t *mem_dup(const void *p, size_t n) {
  uint8_t *copy = malloc(n ? n : 1);
  if (copy && n) memcpy(copy, p, n);
  return copy;
}

/* Appends a data source entry (copies of everything) to the list [*dss, *n). `config` is
** its serialized DataSourceConfig, NULL to synthesize one holding the name; `icpt` the
** interceptor's name or NULL, with its serialized InterceptorConfig (NULL: synthesized). */
static int dss_add(trak__ds_cfg **dss, size_t *n, const char *name, size_t name_len,
                   const void *config, size_t config_len, const char *icpt, size_t icpt_len,
                   const void *icfg, size_t icfg_len) {
  trak__ds_cfg *grown = realloc(*dss, (*n + 1) * sizeof *grown);
  if (!grown) return TRAK_ENOMEM;
  *dss = grown;
  trak__ds_cfg *e = &grown[(*n)++];
  memset(e, 0, sizeof *e);
  trak_pb_buf b;
  trak_pb_buf_init_heap(&b);
  e->name = strndup(name, name_len);
  if (!config) {
    trak_pb_put_bytes(&b, TRAK_PB_DataSourceConfig_name, name, name_len);
    if (icpt) {
      trak_pb_nested ic =
          trak_pb_begin_nested_short(&b, TRAK_PB_DataSourceConfig_interceptor_config);
      trak_pb_put_bytes(&b, TRAK_PB_InterceptorConfig_name, icpt, icpt_len);
      trak_pb_end_nested_short(&b, ic);
    }
    config = b.start;
    config_len = trak_pb_buf_len(&b);
  }
  e->config = mem_dup(config, config_len);
  e->config_len = config_len;
  int ok = e->name && e->config && !b.error;
  b.p = b.start;
  if (icpt) {
    if (!icfg) {
      trak_pb_put_bytes(&b, TRAK_PB_InterceptorConfig_name, icpt, icpt_len);
      icfg = b.start;
      icfg_len = trak_pb_buf_len(&b);
    }
    e->icpt_name = strndup(icpt, icpt_len);
    e->icpt_config = mem_dup(icfg, icfg_len);
    e->icpt_config_len = icfg_len;
    ok = ok && e->icpt_name && e->icpt_config && !b.error;
  }
  trak_pb_buf_free(&b);
  return ok ? 0 : TRAK_ENOMEM;
}

/* The data sources of a config struct: track events first, then the custom ones. */
static int dss_from_config(trak_session *s, const trak_session_config *cfg) {
  const char *ti = cfg->track_event_interceptor;
  int rc = dss_add(&s->dss, &s->ndss, "track_event", 11, NULL, 0, ti, ti ? strlen(ti) : 0, NULL, 0);
  for (size_t i = 0; rc == 0 && i < cfg->n_data_sources; i++) {
    const trak_session_data_source *d = &cfg->data_sources[i];
    if (!d->name) return TRAK_EINVAL;
    const char *ic = d->interceptor;
    rc = dss_add(&s->dss, &s->ndss, d->name, strlen(d->name), d->config, d->config_len, ic,
                 ic ? strlen(ic) : 0, NULL, 0);
  }
  s->track_events = 1;
  return rc;
}

int trak__session_config_copy(trak_session *s, const trak_session_config *cfg) {
  const char *const *lists[4] = {cfg->categories.enabled_categories,
                                 cfg->categories.disabled_categories, cfg->categories.enabled_tags,
                                 cfg->categories.disabled_tags};
  int ok = 1;
  for (int i = 0; i < 4; i++)
    if (lists[i] && !(s->lists[i] = list_copy(lists[i]))) ok = 0;
  s->cat_cfg.enabled_categories = (const char *const *)s->lists[0];
  s->cat_cfg.disabled_categories = (const char *const *)s->lists[1];
  s->cat_cfg.enabled_tags = (const char *const *)s->lists[2];
  s->cat_cfg.disabled_tags = (const char *const *)s->lists[3];
  if (cfg->output_path && !(s->output_path = strdup(cfg->output_path))) ok = 0;
  if (dss_from_config(s, cfg) != 0) ok = 0;
  return ok ? 0 : TRAK_ENOMEM;
}

/* Appends the strings of repeated field `field` of message [data, len) to a growing list. */
static int collect_strings(const uint8_t *data, size_t len, uint32_t field, char ***list) {
  size_t n = 0;
  if (!*list && !(*list = calloc(1, sizeof **list))) return TRAK_ENOMEM;
  while ((*list)[n])
    n++;
  trak_pb_decoder d;
  trak_pb_field f;
  trak_pb_decoder_init(&d, data, len);
  int rc;
  while ((rc = trak_pb_decoder_next(&d, &f)) == 1) {
    if (f.number != field || f.wire_type != TRAK_PB_WIRE_LEN) continue;
    char **grown = realloc(*list, (n + 2) * sizeof *grown);
    if (!grown || !(grown[n] = strndup((const char *)f.data, f.len))) {
      if (grown) *list = grown;
      return TRAK_ENOMEM;
    }
    grown[++n] = NULL;
    *list = grown;
  }
  return rc < 0 ? TRAK_EFORMAT : 0;
}

/* A TraceConfig's data sources, collected while parsing. */
typedef struct ds_list {
  trak__ds_cfg *v;
  size_t n;
  int track_events; /* "track_event" is among them */
} ds_list;

/* Reads one TraceConfig.DataSource: its DataSourceConfig joins `dss` (with its interceptor
** config, if any); the "track_event" one's TrackEventConfig fills the four glob lists. */
static int parse_data_source(const uint8_t *data, size_t len, char **lists[4], ds_list *dss) {
  trak_pb_decoder d, ds;
  trak_pb_field f, g;
  trak_pb_decoder_init(&d, data, len);
  while (trak_pb_decoder_next(&d, &f) == 1) {
    if (f.number != TRAK_PB_TraceConfig_DataSource_config) continue;
    if (trak_pb_decoder_init_nested(&ds, &d, &f) != 0) return TRAK_EFORMAT;
    const uint8_t *te = NULL, *ic = NULL, *name = NULL, *icname = NULL;
    size_t te_len = 0, ic_len = 0, name_len = 0, icname_len = 0;
    while (trak_pb_decoder_next(&ds, &g) == 1) {
      if (g.wire_type != TRAK_PB_WIRE_LEN) continue;
      if (g.number == TRAK_PB_DataSourceConfig_name) {
        name = g.data;
        name_len = g.len;
      } else if (g.number == TRAK_PB_DataSourceConfig_track_event_config) {
        te = g.data;
        te_len = g.len;
      } else if (g.number == TRAK_PB_DataSourceConfig_interceptor_config) {
        ic = g.data;
        ic_len = g.len;
      }
    }
    if (!name) continue;
    if (ic) { /* the interceptor's name */
      trak_pb_decoder_init(&ds, ic, ic_len);
      while (trak_pb_decoder_next(&ds, &g) == 1)
        if (g.number == TRAK_PB_InterceptorConfig_name && g.wire_type == TRAK_PB_WIRE_LEN) {
          icname = g.data;
          icname_len = g.len;
        }
    }
    if (dss_add(&dss->v, &dss->n, (const char *)name, name_len, f.data, f.len, (const char *)icname,
                icname_len, ic, ic_len) != 0)
      return TRAK_ENOMEM;
    int is_track_event = name_len == 11 && memcmp(name, "track_event", 11) == 0;
    dss->track_events |= is_track_event;
    if (!is_track_event) continue;
    static const uint32_t fields[4] = {
        TRAK_PB_TrackEventConfig_enabled_categories, TRAK_PB_TrackEventConfig_disabled_categories,
        TRAK_PB_TrackEventConfig_enabled_tags, TRAK_PB_TrackEventConfig_disabled_tags};
    for (int i = 0; i < 4 && te; i++) {
      /* Absent lists stay NULL (disabled_tags then takes its default). */
      int present = 0;
      trak_pb_decoder_init(&ds, te, te_len);
      while (trak_pb_decoder_next(&ds, &g) == 1)
        present |= g.number == fields[i];
      if (present && collect_strings(te, te_len, fields[i], &lists[i]) != 0) return TRAK_ENOMEM;
    }
  }
  return 0;
}

int trak_session_new_from_proto(const void *trace_config, size_t len, trak_session **out,
                                trak_error *err) {
  trak_session_config cfg;
  memset(&cfg, 0, sizeof cfg);
  char **lists[4] = {0};
  ds_list dss = {NULL, 0, 0};
  char *path = NULL;
  int write_into_file = 0, rc = 0;
  trak_pb_decoder d, sub;
  trak_pb_field f, g;
  trak_pb_decoder_init(&d, trace_config, len);
  int buffers = 0;
  while (rc == 0 && (rc = trak_pb_decoder_next(&d, &f)) == 1) {
    rc = 0;
    switch (f.number) {
    case TRAK_PB_TraceConfig_buffers:
      if (buffers++ || trak_pb_decoder_init_nested(&sub, &d, &f) != 0) break;
      while (trak_pb_decoder_next(&sub, &g) == 1) {
        if (g.number == TRAK_PB_TraceConfig_BufferConfig_size_kb)
          cfg.buffer_size_kb = (uint32_t)g.value;
        if (g.number == TRAK_PB_TraceConfig_BufferConfig_fill_policy)
          cfg.fill_policy = g.value == TRAK_PB_TraceConfig_BufferConfig_DISCARD ? TRAK_FILL_DISCARD
                                                                                : TRAK_FILL_RING;
      }
      break;
    case TRAK_PB_TraceConfig_data_sources:
      if (f.wire_type == TRAK_PB_WIRE_LEN) rc = parse_data_source(f.data, f.len, lists, &dss);
      break;
    case TRAK_PB_TraceConfig_incremental_state_config:
      if (trak_pb_decoder_init_nested(&sub, &d, &f) != 0) break;
      while (trak_pb_decoder_next(&sub, &g) == 1)
        if (g.number == TRAK_PB_TraceConfig_IncrementalStateConfig_clear_period_ms)
          cfg.clear_period_ms = (uint32_t)g.value;
      break;
    case TRAK_PB_TraceConfig_write_into_file:
      write_into_file = f.value != 0;
      break;
    case TRAK_PB_TraceConfig_file_write_period_ms:
      cfg.file_write_period_ms = (uint32_t)f.value;
      break;
    case TRAK_PB_TraceConfig_compression_type:
      cfg.compress = f.value == TRAK_PB_TraceConfig_COMPRESSION_TYPE_DEFLATE;
      break;
    case TRAK_PB_TraceConfig_output_path:
      free(path);
      path = f.wire_type == TRAK_PB_WIRE_LEN ? strndup((const char *)f.data, f.len) : NULL;
      break;
    default:
      break;
    }
  }
  if (rc < 0 || d.error) {
    rc = trak_pb_decoder_error(&d, err);
  } else {
    cfg.categories.enabled_categories = (const char *const *)lists[0];
    cfg.categories.disabled_categories = (const char *const *)lists[1];
    cfg.categories.enabled_tags = (const char *const *)lists[2];
    cfg.categories.disabled_tags = (const char *const *)lists[3];
    cfg.output_path = write_into_file ? path : NULL;
    if (write_into_file && !path)
      rc = trak_error_set(err, TRAK_EINVAL, "write_into_file needs output_path");
    else
      rc = trak_session_new(&cfg, out, err);
  }
  if (rc == 0) { /* the config's data sources replace the default ones */
    trak_session *s = *out;
    dss_free(s->dss, s->ndss);
    s->dss = dss.v;
    s->ndss = dss.n;
    s->track_events = dss.track_events || dss.n == 0;
    dss.v = NULL;
    dss.n = 0;
  }
  dss_free(dss.v, dss.n);
  for (int i = 0; i < 4; i++)
    list_free(lists[i]);
  free(path);
  return rc;
}

int trak_session_new_from_text(const char *text, trak_session **out, trak_error *err) {
  trak_pb_buf b;
  trak_pb_buf_init_heap(&b);
  int rc = trak_pbtxt_parse("TraceConfig", text, strlen(text), &b, err);
  if (rc == 0) rc = trak_session_new_from_proto(b.start, trak_pb_buf_len(&b), out, err);
  trak_pb_buf_free(&b);
  return rc;
}
