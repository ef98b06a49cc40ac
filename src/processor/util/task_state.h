/*
** Linux task states as sched_switch reports them: the raw prev_state bits (whose layout changed
** with kernel 4.8 and 4.14) turned into the letters Perfetto stores in sched.end_state and
** thread_state.state ("S", "D", "R+", "DK", "I", ...), and the letters of systrace text turned
** back into raw bits. Pure functions.
*/
#ifndef TRAK_PROCESSOR_UTIL_TASK_STATE_H
#define TRAK_PROCESSOR_UTIL_TASK_STATE_H

#include <stddef.h>
#include <stdint.h>

/* The raw value trak__task_state_from_systrace gives for text it cannot read. */
#define TRAK_TASK_STATE_RAW_INVALID 0xffffu

/* Writes the letters of the raw prev_state `raw` (as a 16-bit value) to out (at most three
** letters and a NUL, as Perfetto keeps them), decoding the bits above 0x20 with the layout of
** kernel `major`.`minor` (pass 0, 0 when the trace does not say: kernel 4.4's layout is then
** assumed, as Perfetto does). Runnable is "R", preempted "R+"; other states list their letters
** in the order S D T t X Z P x K W N I. Returns 0, or -1 when the bits are not a valid state
** (bits above 0x1ff on 4.14+ kernels), with out set to "". */
int trak__task_state_letters(uint16_t raw, int major, int minor, char out[4]);

/* The raw prev_state bits (kernel 4.4 layout) of the letters in systrace text [s, s + len)
** ("S", "D|K", "R+", ...), as Perfetto converts them before decoding them as any raw value:
** text starting with 'R' is runnable (0; "R+" exactly is preempted, 0x800); otherwise each
** letter of "SDTtXZPxKWNI" adds its bit and '|' is skipped. Empty text, an 'R' or '+' after the
** first letter, or any other byte gives TRAK_TASK_STATE_RAW_INVALID. This function can't fail. */
uint16_t trak__task_state_from_systrace(const char *s, size_t len);

#endif /* TRAK_PROCESSOR_UTIL_TASK_STATE_H */
