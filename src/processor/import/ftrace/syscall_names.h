/*
** The names of Linux system calls by number, per architecture (syscall_names.c).
*/
#ifndef TRAK_PROCESSOR_IMPORT_FTRACE_SYSCALL_NAMES_H
#define TRAK_PROCESSOR_IMPORT_FTRACE_SYSCALL_NAMES_H

#include <stdint.h>

/* The architectures whose system calls trak names. */
typedef enum trak_arch {
  TRAK_ARCH_UNKNOWN,
  TRAK_ARCH_ARM64,
  TRAK_ARCH_ARM32,
  TRAK_ARCH_X86_64,
  TRAK_ARCH_X86
} trak_arch;

/* The name ("sys_read") of system call `number` on `arch`: "" for a number the table holds
** without a call, NULL past the table's end (and for every number of TRAK_ARCH_UNKNOWN). */
const char *trak__syscall_name(trak_arch arch, uint32_t number);

#endif /* TRAK_PROCESSOR_IMPORT_FTRACE_SYSCALL_NAMES_H */
