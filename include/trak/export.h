/*
** TRAK_API marks the functions libtrak.so exports. The library is built with hidden visibility,
** so only what a public header declares with TRAK_API is reachable from outside.
*/
#ifndef TRAK_EXPORT_H
#define TRAK_EXPORT_H

#if defined(TRAK_BUILDING_LIBRARY)
#define TRAK_API __attribute__((visibility("default")))
#else
#define TRAK_API
#endif

#endif /* TRAK_EXPORT_H */
