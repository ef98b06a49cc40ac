/*
** This file holds the SQL function demangle(name) (also __intrinsic_demangle, Perfetto's name
** for it): a C++ symbol in the Itanium ABI's mangling (_Z..., or with the extra underscores of
** Mach-O symbols) as C++ would print it, NULL when the name is not mangled or not valid. The
** demangler is the C++ runtime's own, __cxa_demangle of libstdc++, found at run time: trak is
** C and links no C++, and where libstdc++ is absent every name reads as not mangled (NULL).
*/
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "processor/processor_internal.h"

typedef char *(*cxa_demangle_fn)(const char *mangled, char *buf, size_t *len, int *status);

static cxa_demangle_fn cxa_demangle;
static pthread_once_t cxa_once = PTHREAD_ONCE_INIT;

/* Looks up __cxa_demangle once per process; the library stays loaded for the process's life. */
static void find_cxa_demangle(void) {
  void *lib = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
  if (!lib) return;
  void *sym = dlsym(lib, "__cxa_demangle");
  memcpy(&cxa_demangle, &sym, sizeof sym); /* object to function pointer, as POSIX allows */
}

/* Whether `s` starts like an Itanium mangled name: _Z, or __Z to ____Z (Mach-O's extra
** underscores and block invocations), as LLVM's demangler, which Perfetto uses, requires: the
** C++ runtime would otherwise read plain words such as "i" as mangled types ("int"). */
static const char *mangled_start(const char *s) {
  for (int u = 1; u <= 4; u++)
    if (s[u - 1] == '_' && s[u] == 'Z') return s + u - 1;
  return NULL;
}

static void demangle_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  int type = sqlite3_value_type(argv[0]);
  if (type == SQLITE_NULL) return;
  if (type != SQLITE_TEXT)
    return sqlite3_result_error(ctx, "Unsupported type of arg passed to DEMANGLE", -1);
  const char *name = (const char *)sqlite3_value_text(argv[0]);
  const char *m = name ? mangled_start(name) : NULL;
  if (!m) return;
  pthread_once(&cxa_once, find_cxa_demangle);
  if (!cxa_demangle) return;
  int status = 0;
  /* The runtime demangles _Z names; the Mach-O forms are one underscore longer. */
  char *out = cxa_demangle(m[1] == 'Z' ? m : m + 1, NULL, NULL, &status);
  if (out && status == 0) sqlite3_result_text(ctx, out, -1, free);
  else free(out);
}

int trak__demangle_register(trak_processor *p) {
  int rc = sqlite3_create_function(p->db, "demangle", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
                                   demangle_fn, NULL, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_create_function(p->db, "__intrinsic_demangle", 1,
                                 SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, demangle_fn, NULL,
                                 NULL);
  return rc;
}
