/*
** The umbrella header of libtrak: include this one to instrument a program. It brings the
** wire codec (pb.h), errors (error.h), the SDK's categories, tracks and sessions (sdk.h) and the
** event macros (track_event.h), custom data sources (data_source.h) and interceptors
** (interceptor.h). See docs/sdk.md for a guide with compiling examples.
*/
#ifndef TRAK_TRAK_H
#define TRAK_TRAK_H

#include "trak/error.h"
#include "trak/pb.h"
#include "trak/sdk.h"
#include "trak/track_event.h"
#include "trak/data_source.h"
#include "trak/interceptor.h"

#endif /* TRAK_TRAK_H */
