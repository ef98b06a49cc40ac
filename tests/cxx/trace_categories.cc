// Static storage of the examples' categories (one translation unit holds it).
#include "trace_categories.h"

PERFETTO_TRACK_EVENT_STATIC_STORAGE();
