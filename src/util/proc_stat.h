/*
** Reading /proc/PID/stat: the one parser of that line, for the benchmarks (CPU time of a
** process). The command name may hold spaces and parentheses, so fields are counted from
** the last ')'.
*/
#ifndef TRAK_UTIL_PROC_STAT_H
#define TRAK_UTIL_PROC_STAT_H

/* Reads `n` numeric fields of /proc/PID/stat starting at field `first` (numbered as proc(5)
** does: 1 pid, 2 comm, 3 state, 14 utime, 22 starttime; `first` >= 4) into out[0..n-1].
** Returns 0, or -1 (out untouched past what was read) when the file cannot be read or has
** fewer fields. */
int trak__proc_stat(int pid, int first, int n, unsigned long long *out)
    __attribute__((visibility("hidden")));

#endif /* TRAK_UTIL_PROC_STAT_H */
