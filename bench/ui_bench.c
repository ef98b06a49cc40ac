/*
** Benchmark of the timeline viewer's server side (src/ui/): imports a trace, then times what
** `trak ui` does before and while a page shows it: starting the server (the track list), the
** first screen's answers (slices and counters of every track and the flows over the whole
** trace at 1200 pixels), zoom and pan steps, a group's collapse, and the area selection's
** aggregates and flame graph over every track, all from the slice table's columns; then every
** slice track's lines filled and the flame graph merged from them (what answers the columns
** decline). Optionally writes `trak html` of a second
** trace and prints its size. Prints figures, never a verdict.
**
**   build/import_bench 2000000 /tmp/trak_ui_bench.pb import-only   (TRAK_BENCH_KEEP=1 keeps it)
**   build/ui_bench /tmp/trak_ui_bench.pb [DEMO_TRACE | - | start | paint]  (-: no `trak html`;
**   start: the server's start only; paint: up to the first paint, e.g. under callgrind;
**   TRAK_BENCH_DUMP=DIR: the flame graphs' answers (columns' and lines') written there;
**   flame: the whole-trace flame graph from the columns three times alone, the figure to
**   profile, e.g. with perf record -p once "import" is printed; then the lines' answer, for
**   TRAK_BENCH_DUMP)
*/
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "trak/processor.h"
#include "ui/flame.h"
#include "ui/ui.h"

#define WIDTH 1200 /* pixels of the timeline */
#define STEPS 24

/* Wall and CPU time (of the calling thread: the server's start and answers run on it) of one
** measured step. */
typedef struct stopwatch {
  double wall;
  struct timespec cpu;
} stopwatch;

static stopwatch watch_start(void) {
  stopwatch w;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &w.cpu);
  w.wall = bench_now_sec();
  return w;
}

/* Milliseconds since `w`: wall, and CPU into *cpu_ms. */
static double watch_ms(const stopwatch *w, double *cpu_ms) {
  struct timespec now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  *cpu_ms = (now.tv_sec - w->cpu.tv_sec) * 1e3 + (now.tv_nsec - w->cpu.tv_nsec) / 1e6;
  return (bench_now_sec() - w->wall) * 1e3;
}

/* With TRAK_BENCH_DUMP=DIR set, writes a flame graph answer to DIR/flame-WAY-PART.json (to check
** that the ways answer the same stacks, e.g. with a script sorting them). */
static void dump_answer(const char *way, int part, const trak_ui_buf *out) {
  const char *dir = getenv("TRAK_BENCH_DUMP");
  char path[4096];
  if (!dir ||
      snprintf(path, sizeof path, "%s/flame-%s-%d.json", dir, way, part) >= (int)sizeof path)
    return;
  FILE *f = fopen(path, "w");
  if (f) fwrite(out->s ? out->s : "", 1, out->len, f), fclose(f);
}

/* Prints the process's peak and current resident memory (/proc/self/status) after `when`. */
static void print_memory(const char *when) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long hwm = 0, rss = 0;
  while (f && fgets(line, sizeof line, f)) {
    sscanf(line, "VmHWM: %ld", &hwm);
    sscanf(line, "VmRSS: %ld", &rss);
  }
  if (f) fclose(f);
  printf("memory %s: peak (VmHWM) %.1f MB, resident (VmRSS) %.1f MB\n", when, hwm / 1024.0,
         rss / 1024.0);
}

typedef struct trace_info {
  int64_t start, end;
  int64_t *slice_tracks, *counter_tracks;
  size_t n_slice, n_counter;
} trace_info;

/* The slice and counter tracks of `c` and its bounds, as the page has them from the track list
** (taken from the cache: SELECT DISTINCT over the slice table took a minute at 50M events and
** left the heap full of freed, mapped pages that hid the cache's page faults). */
static void trace_info_of(const trak_ui_cache *c, trace_info *t) {
  t->slice_tracks = malloc((c->n_tracks + 1) * sizeof *t->slice_tracks);
  t->counter_tracks = malloc((c->n_tracks + 1) * sizeof *t->counter_tracks);
  if (!t->slice_tracks || !t->counter_tracks) exit(1);
  for (size_t i = 0; i < c->n_tracks; i++) {
    const trak_ui_track *tr = &c->tracks[i];
    if (tr->kind == TRAK_UI_SLICES && tr->n_lines) t->slice_tracks[t->n_slice++] = tr->id;
    if (tr->n_values) t->counter_tracks[t->n_counter++] = tr->id;
  }
  t->start = c->start, t->end = c->end;
}

/* One screen's answers, as the page asks for them; returns the wall milliseconds taken, the CPU
** milliseconds into *cpu and the bytes into *bytes. */
static double screen(const trak_ui_cache *c, const trace_info *t, int64_t start, int64_t end,
                     size_t *bytes, double *cpu) {
  trak_ui_range r = {start, end, (end - start) / WIDTH > 0 ? (end - start) / WIDTH : 1};
  trak_ui_buf out = {0};
  stopwatch w = watch_start();
  if (trak__ui_slices(c, t->slice_tracks, t->n_slice, &r, &out, NULL) ||
      trak__ui_counters(c, t->counter_tracks, t->n_counter, &r, &out, NULL) ||
      trak__ui_flows(c, start, end, 5000, &out, NULL)) {
    fprintf(stderr, "ui_bench: an answer failed\n");
    exit(1);
  }
  double ms = watch_ms(&w, cpu);
  *bytes = out.len;
  trak__ui_buf_free(&out);
  return ms;
}

static void html_size(const char *path) {
  trak_processor *p;
  trak_error err = {0};
  if (trak_processor_open_file(path, NULL, &p, &err)) {
    fprintf(stderr, "ui_bench: %s\n", err.message);
    exit(1);
  }
  trak_ui_buf page = {0};
  const char *summary;
  double t0 = bench_now_sec();
  if (trak__ui_html(p, NULL, &page, &summary, &err)) exit(1);
  printf("trak html of %s: %zu bytes (%.2f MB) in %.0f ms%s%s\n", path, page.len,
         page.len / 1048576.0, (bench_now_sec() - t0) * 1e3, summary ? "; " : "",
         summary ? summary : "");
  trak__ui_buf_free(&page);
  trak_processor_free(p);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: ui_bench TRACE [DEMO_TRACE]\n");
    return 2;
  }
  setvbuf(stdout, NULL, _IOLBF, 0); /* figures as they come: a 50M-event run takes minutes */
  trak_processor *p;
  trak_error err = {0};
  double t0 = bench_now_sec();
  if (trak_processor_open_file(argv[1], NULL, &p, &err)) {
    fprintf(stderr, "ui_bench: %s\n", err.message);
    return 1;
  }
  printf("import: %" PRIu64 " events in %.2f s\n", trak_processor_event_count(p),
         bench_now_sec() - t0);

  trace_info t = {0};
  print_memory("after the import");

  /* First paint: the server starts (the track list) and answers the first screen. */
  trak_ui_server *s;
  double start_cpu, cache_cpu, first_cpu;
  stopwatch w = watch_start();
  if (trak__ui_server_start(p, NULL, &s, &err)) {
    fprintf(stderr, "ui_bench: %s\n", err.message);
    return 1;
  }
  double start_ms = watch_ms(&w, &start_cpu);
  print_memory("after the server's start");
  trak__ui_server_stop(s);
  /* The same again with the cache in hand, as the server holds it. */
  trak_ui_cache *c;
  w = watch_start();
  if (trak__ui_cache_new(p, &c, &err)) return 1;
  double cache_ms = watch_ms(&w, &cache_cpu);
  trace_info_of(c, &t);
  if (argc > 2 && !strcmp(argv[2], "start")) { /* "start": the start's figures only */
    printf("server start %.0f ms (%.0f ms CPU); the timeline read again %.0f ms (%.0f ms CPU)\n",
           start_ms, start_cpu, cache_ms, cache_cpu);
    trak__ui_cache_free(c);
    return 0;
  }
  if (argc > 2 && !strcmp(argv[2], "density")) { /* "density": the minimap's answer alone */
    trak_ui_range r = {t.start, t.end, (t.end - t.start + WIDTH) / WIDTH};
    for (int run = 0; run < 3; run++) {
      trak_ui_buf out = {0};
      double cpu;
      w = watch_start();
      if (trak__ui_density(c, &r, &out, NULL)) return 1;
      double ms = watch_ms(&w, &cpu);
      printf("minimap density (whole trace, %d px): %.2f ms (%.2f ms CPU), %zu bytes\n", WIDTH, ms,
             cpu, out.len);
      trak__ui_buf_free(&out);
    }
    trak__ui_cache_free(c);
    return 0;
  }
  if (argc > 2 && !strcmp(argv[2], "flame")) { /* "flame": the columns' flame graph alone */
    for (int run = 0; run < 3; run++) {
      trak_ui_buf out = {0};
      trak_ui_flame f = {0};
      double cpu;
      w = watch_start();
      if (trak__ui_scan_flame(c, t.slice_tracks, t.n_slice, t.start, t.end, &f) ||
          trak__ui_flame_write(c, &f, &out))
        return 1;
      double ms = watch_ms(&w, &cpu);
      printf("flame graph from the columns (%zu tracks, whole trace): %.1f ms (%.1f ms CPU), "
             "%zu nodes made, %zu bytes\n",
             t.n_slice, ms, cpu, f.n, out.len);
      dump_answer("columns", run + 1, &out);
      trak__ui_flame_free(&f);
      trak__ui_buf_free(&out);
    }
    trak_ui_buf out = {0}; /* the lines' answer, to compare with TRAK_BENCH_DUMP */
    trak_ui_flame f = {0};
    if (trak__ui_lines_need(c, t.slice_tracks, t.n_slice)) return 1;
    trak__ui_flame_from_lines(c, t.slice_tracks, t.n_slice, t.start, t.end, &f);
    if (f.oom || trak__ui_flame_write(c, &f, &out)) return 1;
    trak__ui_flame_free(&f);
    dump_answer("lines", 1, &out);
    trak__ui_buf_free(&out);
    trak__ui_cache_free(c);
    return 0;
  }
  size_t bytes;
  double first_ms = screen(c, &t, t.start, t.end, &bytes, &first_cpu);
  printf("first paint: %.0f ms (%.0f ms CPU) = server start (timeline read, track list) %.0f ms "
         "(%.0f ms CPU) + first screen %.0f ms (%.0f ms CPU) (%zu slice and %zu counter tracks at "
         "%d px, %zu bytes of JSON)\n",
         start_ms + first_ms, start_cpu + first_cpu, start_ms, start_cpu, first_ms, first_cpu,
         t.n_slice, t.n_counter, WIDTH, bytes);
  if (argc > 2 && !strcmp(argv[2], "paint")) { /* "paint": up to the first paint only */
    trak__ui_cache_free(c);
    trak_processor_free(p);
    return 0;
  }
  printf("the timeline read again (the cache alone, second read): %.0f ms (%.0f ms CPU)\n",
         cache_ms, cache_cpu);
  size_t lined = 0; /* tracks whose answers need their lines: async lanes, loose nesting */
  for (size_t k = 0; k < c->n_tracks; k++)
    lined += c->tracks[k].kind == TRAK_UI_SLICES && (c->tracks[k].deep_roots || c->tracks[k].loose);
  printf("slice tracks whose aggregates need their lines (async lanes, loose nesting): %zu of "
         "%zu\n",
         lined, t.n_slice);
  /* Zoom in 2x towards the middle, then pan right by half a screen, alternately. */
  double ms[STEPS], cpus[STEPS];
  int64_t a = t.start, b = t.end;
  for (int i = 0; i < STEPS; i++) {
    int64_t span = b - a;
    if (i % 2 == 0 && span > 2000) {
      a += span / 4, b -= span / 4;
    } else {
      a += span / 2, b += span / 2;
      if (b > t.end) a -= b - t.end, b = t.end;
    }
    ms[i] = screen(c, &t, a, b, &bytes, &cpus[i]);
  }
  qsort(ms, STEPS, sizeof *ms, bench_cmp_double);
  qsort(cpus, STEPS, sizeof *cpus, bench_cmp_double);
  printf("pan/zoom (server time, all tracks): median %.1f ms (%.1f ms CPU), max %.1f ms (%.1f ms "
         "CPU) over %d steps\n",
         ms[STEPS / 2], cpus[STEPS / 2], ms[STEPS - 1], cpus[STEPS - 1], STEPS);
  /* Collapse or expand: the page asks for the summary's tracks (every slice track of the
  ** group) at screen resolution, as for a screen. */
  double collapse_cpu, collapse_ms = screen(c, &t, t.start, t.end, &bytes, &collapse_cpu);
  printf("collapse/expand (a group of every slice track, whole trace): %.1f ms (%.1f ms CPU)\n",
         collapse_ms, collapse_cpu);
  /* Area selection over every track: the whole trace and a tenth of it. */
  for (int part = 1; part <= 10; part *= 10) {
    trak_ui_range r = {t.start, t.start + (t.end - t.start) / part, 1};
    const char *what[] = {"aggregates", "flame graph"};
    for (int k = 0; k < 2; k++) {
      /* Five runs: the first is cold (fresh pages for its arrays); the machine is shared, so
      ** the least CPU time of the five is the other figure to read. */
      double wall = 1e99, cpu = 1e99, first = 0;
      size_t len = 0;
      for (int run = 0; run < 5; run++) {
        trak_ui_buf out = {0};
        struct timespec cpu0, cpu1;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu0);
        t0 = bench_now_sec();
        int rc = k ? trak__ui_flamegraph(c, t.slice_tracks, t.n_slice, &r, &out, NULL)
                   : trak__ui_aggregate(c, t.slice_tracks, t.n_slice, &r, &out, NULL);
        if (rc) return 1;
        double wl = (bench_now_sec() - t0) * 1e3;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu1);
        double u = (cpu1.tv_sec - cpu0.tv_sec) * 1e3 + (cpu1.tv_nsec - cpu0.tv_nsec) / 1e6;
        wall = wl < wall ? wl : wall, cpu = u < cpu ? u : cpu, len = out.len;
        if (!run) first = u;
        trak__ui_buf_free(&out);
      }
      printf("area selection %s (%zu tracks, 1/%d of the trace): best of 5 %.1f ms (%.1f ms "
             "CPU; the first run %.1f ms CPU), %zu bytes\n",
             what[k], t.n_slice, part, wall, cpu, first, len);
    }
  }
  if (argc > 2 && !strcmp(argv[2], "-")) { /* "-": no html */
  } else {
    if (argc > 2) html_size(argv[2]);
    html_size(argv[1]);
  }
  size_t filled = 0;
  for (size_t k = 0; k < c->n_tracks; k++)
    filled += c->tracks[k].filled;
  printf("slice tracks whose lines the answers filled: %zu\n", filled);
  print_memory("after the answers (from the columns)");
  /* The lines (what the answers the columns decline are made from: async lanes, rows out of
  ** order), filled for every slice track, and the flame graph merged slice by slice from them
  ** against the columns': the whole trace and a tenth. */
  w = watch_start();
  double fill_cpu = 0;
  if (trak__ui_lines_need(c, t.slice_tracks, t.n_slice)) return 1;
  double fill_ms = watch_ms(&w, &fill_cpu);
  printf("slice lines of every track filled: %.0f ms (%.0f ms CPU)\n", fill_ms, fill_cpu);
  print_memory("with every slice track's lines filled");
  for (int part = 1; part <= 10; part *= 10) {
    trak_ui_range r = {t.start, t.start + (t.end - t.start) / part, 1};
    for (int way = 0; way < 2; way++) {
      trak_ui_buf out = {0};
      double cpu;
      w = watch_start();
      trak_ui_flame f = {0}; /* the columns' or the lines' answer */
      if (way)
        trak__ui_flame_from_lines(c, t.slice_tracks, t.n_slice, r.start, r.end, &f);
      else if (trak__ui_scan_flame(c, t.slice_tracks, t.n_slice, r.start, r.end, &f))
        return 1;
      if (f.oom || trak__ui_flame_write(c, &f, &out)) return 1;
      trak__ui_flame_free(&f);
      double took = watch_ms(&w, &cpu);
      dump_answer(way ? "lines" : "columns", part, &out);
      printf("area selection flame graph, %s (%zu tracks, 1/%d of the trace): %.1f ms (%.1f ms "
             "CPU), %zu bytes\n",
             way ? "slice by slice from the lines" : "from the columns", t.n_slice, part, took, cpu,
             out.len);
      trak__ui_buf_free(&out);
    }
  }
  print_memory("at the end");
  trak__ui_cache_free(c);
  trak_processor_free(p);
  free(t.slice_tracks);
  free(t.counter_tracks);
  return 0;
}
