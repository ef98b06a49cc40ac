/*
** This file holds virtio-video events as Perfetto's virtio-video tracker reads them.
*/
#include <stdlib.h>

#include "processor/import/ftrace/ftrace_internal.h"

struct trak_fvvideo {
  int unused;
};

void trak__virtio_video_free(trak_ftrace *f) {
  free(f->vvideo);
  f->vvideo = NULL;
}

void trak__fa_virtio_video(trak_importer *imp, const trak_fq_rec *r) {
  (void)imp, (void)r;
}
