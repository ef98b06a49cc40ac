/*
** The options every command takes, in any position: `--descriptions FILE` (slice description
** rules, repeatable), `--allow-empty` (a trace without events is no warning) and
** `--crop-track-events` (Perfetto's option of that name: track events before the trace's
** range of interest are dropped), `--restrict-sql` (SQL cannot touch files or change trak's
** tables: trak_processor_restrict_sql). main()
** removes them from argv before the command parses it; trak_cli_open_trace (or a command that
** opens traces itself) applies them to each trace it opens.
*/
#include <string.h>

#include "cli/cli.h"

#define MAX_FILES 16
static const char *files[MAX_FILES];
static int n_files;
static int allow_empty;
static unsigned processor_flags;

int trak_cli_take_global_options(int argc, char **argv) {
  int out = 2; /* argv[0] is trak, argv[1] the command */
  for (int i = 2; i < argc; i++) {
    const char *file = NULL;
    if (!strcmp(argv[i], "--descriptions") && i + 1 < argc)
      file = argv[++i];
    else if (!strncmp(argv[i], "--descriptions=", 15))
      file = argv[i] + 15;
    else if (!strcmp(argv[i], "--allow-empty")) {
      allow_empty = 1;
      continue;
    } else if (!strcmp(argv[i], "--restrict-sql")) {
      processor_flags |= TRAK_PROCESSOR_RESTRICT_SQL;
      continue;
    } else if (!strcmp(argv[i], "--crop-track-events")) {
      processor_flags |= TRAK_PROCESSOR_CROP_TRACK_EVENTS;
      continue;
    }
    if (file && n_files < MAX_FILES)
      files[n_files++] = file;
    else if (!file)
      argv[out++] = argv[i];
  }
  if (out < argc) argv[out] = NULL;
  return argc < 2 ? argc : out;
}

int trak_cli_allow_empty(void) {
  return allow_empty;
}

unsigned trak_cli_processor_flags(void) {
  return processor_flags;
}

int trak_cli_apply_descriptions(const char *cmd, trak_processor *p) {
  for (int i = 0; i < n_files; i++) {
    trak_error err = {0};
    if (trak_processor_load_descriptions(p, files[i], &err)) return trak_cli_fail(cmd, &err);
  }
  return 0;
}
