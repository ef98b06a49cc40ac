/*
** The description Perfetto gives each per-process memory counter track ("mem.rss",
** "mem.swap", ...; type process_memory), which becomes the track's source arg "description".
*/
#include "processor/import/memory_descriptions.h"

#include <string.h>

#define POLLED_URL                                                                                 \
  "https://perfetto.dev/docs/data-sources/memory-counters#per-process-polled-counters"
#define FTRACE_URL                                                                                 \
  "https://perfetto.dev/docs/data-sources/memory-counters#per-process-memory-events-ftrace"

static const struct {
  const char *key, *text;
} descriptions[] = {
    {"virt", "Virtual memory size (VmSize): Total virtual address space reserved by the process. "
             "Useful for understanding address space layout and detecting excessive memory "
             "reservations. WARNING: Polled periodically, so may miss short-lived changes. See " POLLED_URL
             " for information."},
    {"rss", "Resident set size (VmRSS): Total physical memory currently used by the process "
            "(rss.anon + rss.file + rss.shmem). Key metric for understanding actual memory "
            "pressure and OOM risk. WARNING: Polled periodically, so use rss.anon + rss.file + "
            "rss.shmem from ftrace for complementary high-resolution tracking. See " POLLED_URL
            " for information."},
    {"rss.anon", "Anonymous resident memory (RssAnon): Physical memory for heap and stack "
                 "allocations not backed by files. High values indicate memory allocations from "
                 "malloc/new. Most important for app memory usage and detecting memory leaks. "
                 "See " FTRACE_URL " for information."},
    {"rss.file", "File-backed resident memory (RssFile): Physical memory used for memory-mapped "
                 "files (e.g., code, libraries, mmap'd files). Useful for understanding shared "
                 "library overhead. Can be reclaimed under memory pressure. See " FTRACE_URL
                 " for information."},
    {"rss.shmem", "Shared memory resident pages (RssShmem): Physical memory in shared memory "
                  "regions (shmem/tmpfs). Used for IPC and shared data. Important for identifying "
                  "inter-process memory usage. See " FTRACE_URL " for information."},
    {"swap", "Swapped memory (VmSwap): Memory moved to swap storage. Does not necessarily "
             "indicate severe pressure - kswapd may swap out inactive memory proactively. "
             "However, if actively used and swap/anon ratio is high, this suggests inefficient "
             "memory usage or leaks. Accessing swapped memory causes major page faults and "
             "performance degradation. Available from both ftrace and polling for complementary "
             "views. See " FTRACE_URL " or " POLLED_URL " for information."},
    {"locked", "Locked memory pages (VmLocked): Memory pinned in RAM that cannot be swapped out "
               "or reclaimed (via mlock). High values prevent memory reclamation during "
               "pressure. Typically set via profiler-guided optimization to minimize faults on "
               "critical paths. WARNING: Polled periodically, so may miss short-lived changes. "
               "See " POLLED_URL " for information."},
    {"rss.watermark",
     "Peak RSS (VmHWM): Historical maximum RSS reached by the process. Useful for capacity "
     "planning and detecting memory usage spikes that may have triggered OOM or performance "
     "issues. WARNING: Polled periodically, so the time of the spike may not be accurate. "
     "Prefer relying on rss.anon + rss.file + rss.shmem which have pushed ftrace events so are "
     "more time accurate. See " POLLED_URL " for information."},
    {"dmabuf_rss", "DMA buffer RSS: Physical memory used for DMA buffers (successor to Android "
                   "ION). Used for surfaces, hardware bitmaps, media/camera buffers, and other "
                   "GPU/hardware accelerator memory. Critical for graphics/camera apps. High "
                   "values indicate GPU memory pressure or resource leaks in graphics/media "
                   "pipelines. See dmabuf ftrace events or /proc/[pid]/fdinfo polling for "
                   "information."},
    {"unreclaimable", "Unreclaimable memory: KGSL driver specific event, rarely useful."},
    {"unknown", "Unknown memory type: Memory category not recognized by the tracer. May "
                "indicate new kernel memory types or parsing errors. Should be investigated if "
                "non-zero."},
};

const char *trak__process_memory_description(const char *key) {
  if (!key) return NULL;
  for (size_t i = 0; i < sizeof descriptions / sizeof descriptions[0]; i++)
    if (strcmp(descriptions[i].key, key) == 0) return descriptions[i].text;
  return NULL;
}
