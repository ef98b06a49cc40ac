/*
** Whether this build runs under a sanitizer that owns the heap (AddressSanitizer or
** ThreadSanitizer, with GCC or Clang): TRAK_SANITIZED_HEAP is then defined. Code that leaves
** the heap to glibc's own tools (malloc_trim) or to the process's exit tests it.
*/
#ifndef TRAK_UTIL_SANITIZED_H
#define TRAK_UTIL_SANITIZED_H

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TRAK_SANITIZED_HEAP 1 /* GCC's sanitizers */
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define TRAK_SANITIZED_HEAP 1 /* Clang's */
#endif
#endif

#endif
