/*
** This file holds the parser of /proc/PID/stat described in proc_stat.h.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/proc_stat.h"

int trak__proc_stat(int pid, int first, int n, unsigned long long *out) {
  char path[64], buf[1024];
  snprintf(path, sizeof path, "/proc/%d/stat", pid);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  size_t len = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[len] = 0;
  char *p = strrchr(buf, ')'); /* the end of field 2, the command name */
  if (!p || first < 4) return -1;
  p++;
  /* Each field is preceded by one space: skip to the one before field `first`. */
  for (int field = 3; field < first; field++)
    if (!(p = strchr(p + 1, ' '))) return -1;
  for (int i = 0; i < n; i++) {
    char *end;
    out[i] = strtoull(p + 1, &end, 10);
    if (end == p + 1) return -1;
    p = end;
  }
  return 0;
}
