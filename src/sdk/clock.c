/*
** The SDK's clocks. The trace clock is CLOCK_BOOTTIME. Reading it costs ~28 ns here against
** ~11 ns for rdtsc (docs/sdk.md, "Timestamps"), so on x86-64 with an invariant TSC the event
** path reads the TSC and scales it to nanoseconds on the BOOTTIME scale with one 128-bit
** multiply; the scale is calibrated at init. Each writer sequence anchors its incremental
** clock with a ClockSnapshot pairing a TSC-derived value with the real BOOTTIME of the same
** instant (trak__boottime_at), so residual drift is corrected by the trace processor at every
** incremental-state clear.
** TRAK_CLOCK=boottime in the environment forces clock_gettime; TRAK_CLOCK=tsc uses the TSC
** even when CPUID does not report it invariant (valgrind hides the bit).
*/
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "sdk/internal.h"

int trak__clock_tsc;
uint64_t trak__tsc_base, trak__boot_base, trak__tsc_mult;
uint64_t (*trak__clock_fake)(void);

uint64_t trak__boottime(void) {
  if (TRAK_UNLIKELY(trak__clock_fake != NULL)) return trak__clock_fake();
  struct timespec ts;
  clock_gettime(CLOCK_BOOTTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t trak_clock_now(void) {
  return trak__boottime();
}

/* The fake clock lives behind trak__boottime(), which the TSC path never calls: it costs the
** event path nothing. */
void trak_clock_set_fake(uint64_t (*now)(void)) {
  trak_init();
  static int had_tsc = -1;
  if (had_tsc < 0) had_tsc = trak__clock_tsc;
  trak__clock_fake = now;
  trak__clock_tsc = now ? 0 : had_tsc;
}

#if defined(__x86_64__)
static int tsc_is_invariant(void) {
  unsigned a, b, c, d;
  if (!__get_cpuid(0x80000007, &a, &b, &c, &d)) return 0;
  return (d >> 8) & 1;
}

/* One (tsc, boottime) pair taken as close together as the machine allows: the pair whose
** clock_gettime took the fewest cycles out of a few tries. */
static void sample(uint64_t *tsc, uint64_t *boot) {
  uint64_t best = UINT64_MAX;
  *tsc = *boot = 0;
  for (int i = 0; i < 8; i++) {
    uint64_t t0 = __builtin_ia32_rdtsc();
    uint64_t b = trak__boottime();
    uint64_t t1 = __builtin_ia32_rdtsc();
    if (t1 - t0 < best) {
      best = t1 - t0;
      *tsc = t0 + (t1 - t0) / 2;
      *boot = b;
    }
  }
}
#endif

/* Reads the event clock and BOOTTIME as one pair (sample()'s narrowest bracket, so a thread
** preempted between two reads does not shift its whole sequence) and steps the BOOTTIME
** reading back by the event-clock time elapsed since `ts`. */
uint64_t trak__boottime_at(uint64_t ts) {
#if defined(__x86_64__)
  if (trak__clock_tsc) {
    uint64_t tsc, boot;
    sample(&tsc, &boot);
    uint64_t now = trak__tsc_ns(tsc);
    return now >= ts ? boot - (now - ts) : boot + (ts - now);
  }
#endif
  return ts; /* the event clock is BOOTTIME itself */
}

/* Calibrates the TSC against BOOTTIME over ~20 ms. Called once from trak_init(). */
void trak__clock_init(void) {
#if defined(__x86_64__)
  const char *env = getenv("TRAK_CLOCK");
  if (env && strcmp(env, "boottime") == 0) return;
  if (!tsc_is_invariant() && !(env && strcmp(env, "tsc") == 0)) return;
  uint64_t tsc0, boot0, tsc1, boot1;
  sample(&tsc0, &boot0);
  struct timespec nap = {0, 20 * 1000 * 1000};
  nanosleep(&nap, NULL);
  sample(&tsc1, &boot1);
  if (tsc1 <= tsc0 || boot1 <= boot0) return;
  trak__tsc_mult = (uint64_t)(((unsigned __int128)(boot1 - boot0) << 32) / (tsc1 - tsc0));
  trak__tsc_base = tsc1;
  trak__boot_base = boot1;
  trak__clock_tsc = 1;
#endif
}
