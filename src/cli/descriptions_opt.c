/*
** `--descriptions FILE`, accepted by every command that opens a trace: main() removes the
** option from argv before the command parses it, and trak_cli_open_trace (or a command that
** opens traces itself) loads the files' rules into each processor it opens.
*/
#include <string.h>

#include "cli/cli.h"

#define MAX_FILES 16
static const char *files[MAX_FILES];
static int n_files;

int trak_cli_take_descriptions(int argc, char **argv) {
  int out = 2; /* argv[0] is trak, argv[1] the command */
  for (int i = 2; i < argc; i++) {
    const char *file = NULL;
    if (!strcmp(argv[i], "--descriptions") && i + 1 < argc)
      file = argv[++i];
    else if (!strncmp(argv[i], "--descriptions=", 15))
      file = argv[i] + 15;
    if (file && n_files < MAX_FILES)
      files[n_files++] = file;
    else if (!file)
      argv[out++] = argv[i];
  }
  if (out < argc) argv[out] = NULL;
  return argc < 2 ? argc : out;
}

int trak_cli_apply_descriptions(const char *cmd, trak_processor *p) {
  for (int i = 0; i < n_files; i++) {
    trak_error err = {0};
    if (trak_processor_load_descriptions(p, files[i], &err)) return trak_cli_fail(cmd, &err);
  }
  return 0;
}
