/*
** The protobuf exporter (pb_export.c): a finished processor's tables written as a Perfetto
** protobuf trace, for `trak convert trace.json out.pb` (docs/formats.md).
*/
#ifndef TRAK_PROCESSOR_PB_EXPORT_H
#define TRAK_PROCESSOR_PB_EXPORT_H

#include "trak/error.h"
#include "trak/pb.h"

#ifdef __cplusplus
extern "C" {
#endif

struct trak_processor;

/* Appends the whole trace (Trace.packet fields) to `buf`. Returns 0, TRAK_ESTATE before
** finish, or the buffer's error (TRAK_ENOMEM). */
int trak__pb_export(struct trak_processor *p, trak_pb_buf *buf, trak_error *err);

#ifdef __cplusplus
}
#endif

#endif /* TRAK_PROCESSOR_PB_EXPORT_H */
