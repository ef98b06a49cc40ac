/*
** This file holds V4L2 buffer events as Perfetto's v4l2 tracker reads them.
*/
#include <stdlib.h>

#include "processor/import/ftrace/ftrace_internal.h"

struct trak_fv4l2 {
  int unused;
};

void trak__v4l2_free(trak_ftrace *f) {
  free(f->v4l2);
  f->v4l2 = NULL;
}

void trak__fa_v4l2(trak_importer *imp, const trak_fq_rec *r) {
  (void)imp, (void)r;
}
