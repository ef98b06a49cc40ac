// The categories of the Perfetto-compatibility examples, declared the way a program written
// for Perfetto's SDK declares them (only the include differs).
#ifndef TRAK_TESTS_TRACE_CATEGORIES_H
#define TRAK_TESTS_TRACE_CATEGORIES_H

#include <trak/perfetto.h>

PERFETTO_DEFINE_CATEGORIES(
    perfetto::Category("rendering").SetDescription("Rendering and graphics events"),
    perfetto::Category("network.debug").SetTags("debug").SetDescription("Verbose network events"),
    perfetto::Category("audio.latency").SetTags("verbose").SetDescription("Audio latency"),
    perfetto::Category("io").SetDescription("Loading"), perfetto::Category("off"),
    perfetto::Category::Group("rendering,io"));

#endif
