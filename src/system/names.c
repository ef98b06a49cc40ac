/*
** This file holds the NULL-terminated lists of names the daemon keeps per producer (the data
** sources it advertised in IpcHello / IpcDataSources), declared in system.h.
*/
#include <stdlib.h>
#include <string.h>

#include "system/system.h"

void trak__names_free(char **v) {
  for (size_t i = 0; v && v[i]; i++)
    free(v[i]);
  free(v);
}

/* Appends a copy of [name, name + len) to the NULL-terminated list *v. */
int trak__names_add(char ***v, const void *name, size_t len) {
  size_t n = 0;
  while (*v && (*v)[n])
    n++;
  char **grown = realloc(*v, (n + 2) * sizeof *grown);
  if (!grown) return -1;
  *v = grown;
  grown[n] = strndup(name, len);
  grown[n + 1] = NULL;
  return grown[n] ? 0 : -1;
}

/* The data source names a producer advertised. */
char **trak__names_from(const trak__ipc_msg *m) {
  char **v = NULL;
  for (uint32_t i = 0; i < m->nnames; i++)
    if (trak__names_add(&v, m->names[i], m->name_lens[i]) != 0) break;
  return v;
}
