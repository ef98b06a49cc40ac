/*
** This file holds DeobfuscationMapping packets (an app's map from R8/ProGuard names to the
** source's) and the deobfuscated names they give the profiles' Java frames, as Perfetto's
** deobfuscation tracker gives them once the trace is read:
**   - a frame whose function name has a '.' is a Java frame of the package its mapping's path
**     names (/data/app/[~~x/]<package>-y/..., a dex extracted in memory from there, or one of
**     the system apps Perfetto knows by path), of "memfd" for a /memfd: mapping, else of the
**     package whose uid is the app id of a process whose heap profile allocated on it;
**   - each map's methods ("<obfuscated class>.<obfuscated method>") name the frames of its
**     package (and memfd's) of that name: the source name (the class's name, '.', the method's,
**     unless the method's is qualified already), or, when several methods of the map share the
**     obfuscated name, their distinct names sorted and joined by " | ".
** Not done: R8's line ranges (inline chains into stack_profile_symbol), heap graph classes and
** fields (trak has no heap graphs) and CPU profile samples' package guess.
*/
#define _GNU_SOURCE /* memmem */
#include <string.h>

#include "processor/import/hash.h"
#include "processor/import/proto/proto.h"

typedef struct trak_deobfuscation {
  TRAK_VEC(trak_span) packets; /* copies, freed by _free */
} trak_deobfuscation;

/* The Java frames of one (name, package): a chain through `next`. */
typedef struct java_frame {
  uint32_t frame, next;
} java_frame;

typedef struct frame_index {
  trak_map head; /* mix(name, package) -> first java_frame (chains may merge on a collision,
                 ** so each frame's own name and package are checked) */
  TRAK_VEC(java_frame) frames;
  TRAK_VEC(uint32_t) package; /* frame row -> its package's string id, 0: none yet */
} frame_index;

void trak__deobfuscation_packet(trak_importer *imp, const uint8_t *data, size_t len) {
  if (!imp->deobfuscation && !(imp->deobfuscation = calloc(1, sizeof *imp->deobfuscation)))
    abort();
  uint8_t *copy = malloc(len ? len : 1);
  if (!copy) abort();
  if (len) memcpy(copy, data, len);
  trak_span sp = {copy, len};
  trak_vec_push(imp->deobfuscation->packets, sp);
}

static int starts_with(const char *s, size_t n, const char *prefix) {
  size_t k = strlen(prefix);
  return n >= k && !memcmp(s, prefix, k);
}

static const char *find(const char *s, size_t n, const char *needle) {
  return memmem(s, n, needle, strlen(needle));
}

/* The package of /data/app/[~~x/]<package>-y/...: sets *pkg, *pkg_len; returns 0, or -1. */
static int package_from_app(const char *s, size_t n, const char **pkg, size_t *pkg_len) {
  s += 10, n -= 10; /* "/data/app/" */
  size_t start = 0;
  if (n && s[0] == '~') {
    const char *slash = memchr(s, '/', n);
    if (!slash) return -1;
    start = (size_t)(slash - s) + 1;
  }
  const char *end = start + 1 < n ? memchr(s + start + 1, '/', n - start - 1) : NULL;
  if (!end) return -1;
  /* Perfetto takes (end) characters from start, not end - start */
  size_t count = (size_t)(end - s);
  size_t part = start + count < n ? count : n - start;
  const char *minus = memchr(s + start, '-', part);
  if (!minus) return -1;
  *pkg = s + start, *pkg_len = (size_t)(minus - (s + start));
  return 0;
}

/* The package a mapping's path names (its string id), or 0. */
static uint32_t package_of(trak_importer *imp, const char *s, size_t n) {
  static const char *const prefixes[][2] = {
      {"/system_ext/priv-app/SystemUIGoogle/SystemUIGoogle.apk", "com.android.systemui"},
      {"/product/priv-app/Phonesky/Phonesky.apk", "com.android.vending"},
      {"/product/app/Maps/Maps.apk", "com.google.android.apps.maps"},
      {"/system_ext/priv-app/NexusLauncherRelease/NexusLauncherRelease.apk",
       "com.google.android.apps.nexuslauncher"},
      {"/product/app/Photos/Photos.apk", "com.google.android.apps.photos"},
      {"/product/priv-app/WellbeingPrebuilt/WellbeingPrebuilt.apk",
       "com.google.android.apps.wellbeing"},
  };
  static const char *const contains[][2] = {
      {"DevicePersonalizationPrebuilt", "com.google.android.as"},
      {"MatchMaker", "com.google.android.as"},
      {"DeviceIntelligenceNetworkPrebuilt", "com.google.android.as.oss"},
      {"SettingsIntelligenceGooglePrebuilt", "com.google.android.settings.intelligence"},
  };
  static const char *const prefixes2[][2] = {
      {"/product/app/PrebuiltGmail/PrebuiltGmail.apk", "com.google.android.gm"},
  };
  static const char *const contains2[][2] = {
      {"PrebuiltGmsCore", "com.google.android.gms"},
      {"com.google.android.gms", "com.google.android.gms"},
  };
  static const char *const prefixes3[][2] = {
      {"/product/priv-app/Velvet/Velvet.apk", "com.google.android.googlequicksearchbox"},
      {"/product/app/LatinIMEGooglePrebuilt/LatinIMEGooglePrebuilt.apk",
       "com.google.android.inputmethod.latin"},
      {"/product/app/PrebuiltBugle/PrebuiltBugle.apk", "com.google.android.apps.messaging"},
  };
  trak_strpool *sp = &imp->tables->strings;
  const char *name = NULL;
  /* in Perfetto's order of tests */
  for (size_t i = 0; !name && i < sizeof prefixes / sizeof *prefixes; i++)
    if (starts_with(s, n, prefixes[i][0])) name = prefixes[i][1];
  for (size_t i = 0; !name && i < sizeof contains / sizeof *contains; i++)
    if (find(s, n, contains[i][0])) name = contains[i][1];
  for (size_t i = 0; !name && i < sizeof prefixes2 / sizeof *prefixes2; i++)
    if (starts_with(s, n, prefixes2[i][0])) name = prefixes2[i][1];
  for (size_t i = 0; !name && i < sizeof contains2 / sizeof *contains2; i++)
    if (find(s, n, contains2[i][0])) name = contains2[i][1];
  for (size_t i = 0; !name && i < sizeof prefixes3 / sizeof *prefixes3; i++)
    if (starts_with(s, n, prefixes3[i][0])) name = prefixes3[i][1];
  if (name) return trak__strpool_intern(sp, name, strlen(name));
  const char *app = NULL;
  if (starts_with(s, n, "/data/app/")) {
    app = s;
  } else {
    const char *dex = find(s, n, "dex extracted in memory from /data/app/");
    if (dex) app = dex + strlen("dex extracted in memory from ");
  }
  if (!app) return 0;
  const char *pkg;
  size_t pkg_len;
  if (package_from_app(app, n - (size_t)(app - s), &pkg, &pkg_len)) {
    imp->stats[TRAK_STAT_DEOBFUSCATE_LOCATION_PARSE_ERROR]++;
    return 0;
  }
  return trak__strpool_intern(sp, pkg, pkg_len);
}

static void index_add(frame_index *ix, uint32_t name, uint32_t package, uint32_t frame) {
  int added;
  uint32_t *head = trak__map_put(&ix->head, trak__mix(name, package), TRAK_NULL_U32, &added);
  java_frame jf = {frame, *head};
  *head = (uint32_t)ix->frames.n;
  trak_vec_push(ix->frames, jf);
  ix->package.v[frame] = package;
}

/* Gives the frames on the stacks of heap allocations that have no package yet the package of
** their process's app id (the first package_list row of that uid). */
static void guess_packages(trak_importer *imp, frame_index *ix, const uint8_t *needs) {
  trak_tables *t = imp->tables;
  for (size_t i = 0; i < t->stack_profile.heap_allocs.n; i++) {
    const trak_sp_heap_alloc *a = &t->stack_profile.heap_allocs.v[i];
    int64_t appid = t->process.android_appid[a->upid];
    if (appid == INT64_MIN) continue;
    uint32_t package = 0;
    for (size_t k = 0; !package && k < imp->packages.n; k++)
      if (imp->packages.v[k].uid == appid) package = imp->packages.v[k].name;
    if (!package) continue;
    for (uint32_t c = a->callsite_id; c != TRAK_NULL_U32; c = t->stack_profile.callsites.v[c].parent_id) {
      uint32_t frame = t->stack_profile.callsites.v[c].frame_id;
      if (needs[frame] && !ix->package.v[frame])
        index_add(ix, t->stack_profile.frames.v[frame].name, package, frame);
    }
  }
}

/* One method of a map: its merged obfuscated name and source name (string ids). */
typedef struct method {
  uint32_t obfuscated, source;
} method;
typedef TRAK_VEC(method) method_vec;

static int method_cmp(const void *a, const void *b) {
  const method *x = a, *y = b;
  return (x->obfuscated > y->obfuscated) - (x->obfuscated < y->obfuscated);
}

/* Copies `sp` (data NULL when empty) to buf + at; returns the end. */
static size_t append(char *buf, size_t at, trak_span sp) {
  if (sp.len) memcpy(buf + at, sp.data, sp.len);
  return at + sp.len;
}

/* Appends the methods of ObfuscatedClass `data` to `out`. */
static void class_methods(trak_importer *imp, const uint8_t *data, size_t len, method_vec *out) {
  trak_pb_decoder dec, sub;
  trak_pb_field f, g;
  trak_span obf = {NULL, 0}, src = {NULL, 0};
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.wire_type != TRAK_PB_WIRE_LEN) continue;
    if (f.number == TRAK_PB_ObfuscatedClass_obfuscated_name) obf = (trak_span){f.data, f.len};
    if (f.number == TRAK_PB_ObfuscatedClass_deobfuscated_name) src = (trak_span){f.data, f.len};
  }
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number != TRAK_PB_ObfuscatedClass_obfuscated_methods || f.wire_type != TRAK_PB_WIRE_LEN)
      continue;
    trak_span mo = {NULL, 0}, ms = {NULL, 0};
    trak__dec_init(imp, &sub, f.data, f.len);
    while (trak_pb_decoder_next(&sub, &g) > 0) {
      if (g.wire_type != TRAK_PB_WIRE_LEN) continue;
      if (g.number == TRAK_PB_ObfuscatedMember_obfuscated_name) mo = (trak_span){g.data, g.len};
      if (g.number == TRAK_PB_ObfuscatedMember_deobfuscated_name) ms = (trak_span){g.data, g.len};
    }
    char buf[2048];
    if (obf.len + 1 + mo.len > sizeof buf || src.len + 1 + ms.len > sizeof buf) continue;
    method m;
    size_t n = append(buf, 0, obf), qualified = ms.len && memchr(ms.data, '.', ms.len);
    buf[n++] = '.';
    m.obfuscated = trak__strpool_intern(&imp->tables->strings, buf, append(buf, n, mo));
    n = 0;
    if (!qualified) { /* relative to its class */
      n = append(buf, 0, src);
      buf[n++] = '.';
    }
    m.source = trak__strpool_intern(&imp->tables->strings, buf, append(buf, n, ms));
    trak_vec_push(*out, m);
  }
}

static int str_cmp(const trak_strpool *sp, uint32_t a, uint32_t b) {
  size_t la = sp->len.v[a], lb = sp->len.v[b];
  int c = memcmp(sp->str.v[a], sp->str.v[b], la < lb ? la : lb);
  return c ? c : (la > lb) - (la < lb);
}

/* The name the methods m[0..n) (one obfuscated name) give a frame: the source name when they
** agree, else their distinct names sorted, joined by " | ". */
static uint32_t source_name(trak_importer *imp, method *m, size_t n) {
  trak_strpool *sp = &imp->tables->strings;
  for (size_t i = 1; i < n; i++) /* insertion sort by source name: n is small */
    for (size_t j = i; j > 0 && str_cmp(sp, m[j - 1].source, m[j].source) > 0; j--) {
      method x = m[j];
      m[j] = m[j - 1], m[j - 1] = x;
    }
  if (m[0].source == m[n - 1].source) return m[0].source;
  char buf[8192];
  size_t len = 0;
  for (size_t i = 0; i < n; i++) {
    if (i && m[i].source == m[i - 1].source) continue;
    size_t l = sp->len.v[m[i].source];
    if (len + 3 + l > sizeof buf) break;
    if (len) memcpy(buf + len, " | ", 3), len += 3;
    memcpy(buf + len, sp->str.v[m[i].source], l), len += l;
  }
  return trak__strpool_intern(sp, buf, len);
}

/* Applies one map to the indexed frames. */
static void apply_map(trak_importer *imp, frame_index *ix, const trak_span *packet) {
  trak_strpool *sp = &imp->tables->strings;
  trak_pb_decoder dec;
  trak_pb_field f;
  trak_span pkg = {NULL, 0};
  method_vec methods = {0};
  trak__dec_init(imp, &dec, packet->data, packet->len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.wire_type != TRAK_PB_WIRE_LEN) continue;
    if (f.number == TRAK_PB_DeobfuscationMapping_package_name) pkg = (trak_span){f.data, f.len};
    if (f.number == TRAK_PB_DeobfuscationMapping_obfuscated_classes)
      class_methods(imp, f.data, f.len, &methods);
  }
  uint32_t package = pkg.len ? trak__strpool_find(sp, (const char *)pkg.data, pkg.len) : 0;
  uint32_t memfd = trak__strpool_find(sp, "memfd", 5);
  if (pkg.len && (package || memfd) && methods.n) {
    qsort(methods.v, methods.n, sizeof *methods.v, method_cmp);
    for (size_t i = 0, j; i < methods.n; i = j) {
      for (j = i + 1; j < methods.n && methods.v[j].obfuscated == methods.v[i].obfuscated; j++) {}
      uint32_t name = methods.v[i].obfuscated, source = 0;
      for (int k = 0; k < 2; k++) {
        uint32_t p = k ? memfd : package;
        if (!p) continue;
        const uint32_t *head = trak__map_get(&ix->head, trak__mix(name, p));
        for (uint32_t e = head ? *head : TRAK_NULL_U32; e != TRAK_NULL_U32; e = ix->frames.v[e].next) {
          trak_sp_frame *fr = &imp->tables->stack_profile.frames.v[ix->frames.v[e].frame];
          if (fr->name != name || ix->package.v[ix->frames.v[e].frame] != p) continue;
          if (!source) source = source_name(imp, methods.v + i, j - i);
          fr->deobfuscated_name = source;
        }
      }
    }
  }
  trak_vec_free(methods);
}

void trak__deobfuscation_finish(trak_importer *imp) {
  trak_deobfuscation *d = imp->deobfuscation;
  if (!d) return;
  trak_tables *t = imp->tables;
  trak_strpool *sp = &t->strings;
  size_t n = t->stack_profile.frames.n;
  frame_index ix;
  memset(&ix, 0, sizeof ix);
  uint8_t *needs = calloc(n ? n : 1, 1);
  if (!needs) abort();
  for (size_t i = 0; i < n; i++)
    trak_vec_push(ix.package, 0);
  for (size_t i = 0; i < n; i++) {
    const trak_sp_frame *fr = &t->stack_profile.frames.v[i];
    if (!fr->name || !memchr(sp->str.v[fr->name], '.', sp->len.v[fr->name])) continue;
    uint32_t m = t->stack_profile.mappings.v[fr->mapping].name;
    const char *path = trak__str(sp, m);
    size_t len = m ? sp->len.v[m] : 0;
    uint32_t package = path ? package_of(imp, path, len) : 0;
    if (!package && starts_with(path ? path : "", len, "/memfd:"))
      package = trak__strpool_intern(sp, "memfd", 5);
    if (package)
      index_add(&ix, fr->name, package, (uint32_t)i);
    else
      needs[i] = 1;
  }
  guess_packages(imp, &ix, needs);
  for (size_t i = 0; i < d->packets.n; i++)
    apply_map(imp, &ix, &d->packets.v[i]);
  free(needs);
  trak__map_free(&ix.head);
  trak_vec_free(ix.frames);
  trak_vec_free(ix.package);
}

void trak__deobfuscation_free(trak_importer *imp) {
  trak_deobfuscation *d = imp->deobfuscation;
  if (!d) return;
  for (size_t i = 0; i < d->packets.n; i++)
    free((void *)d->packets.v[i].data);
  trak_vec_free(d->packets);
  free(d);
  imp->deobfuscation = NULL;
}
