/*
** Tests of src/processor/util/task_state.c: sched_switch prev_state bits to the letters Perfetto
** stores (per kernel layout: before 4.8, 4.8 to 4.14, 4.14 and later) and systrace letters back
** to bits. The expected letters follow Perfetto's TaskState rules (docs/design/linux-import.md).
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "processor/util/task_state.h"

static void expect(uint16_t raw, int major, int minor, const char *want) {
  char out[4];
  int rc = trak__task_state_letters(raw, major, minor, out);
  if (!want) {
    if (rc != -1 || out[0])
      fail_msg("0x%x on %d.%d: got '%s', want invalid", raw, major, minor, out);
    return;
  }
  if (rc || strcmp(out, want))
    fail_msg("0x%x on %d.%d: got '%s', want '%s'", raw, major, minor, out, want);
}

/* No kernel version: the 4.4 layout (preemption 0x800, TASK_DEAD 0x40, ... NOLOAD 0x400). */
static void layout_4_4(void **state) {
  (void)state;
  expect(0, 0, 0, "R");
  expect(0x1, 0, 0, "S");
  expect(0x2, 0, 0, "D");
  expect(0x800, 0, 0, "R+");
  expect(0x801, 0, 0, "S"); /* only a runnable task shows its preemption */
  expect(0x402, 0, 0, "I"); /* D + NOLOAD is the idle state */
  expect(0x82, 0, 0, "DK");
  expect(0x40, 0, 0, "x");
  expect(0x100, 0, 0, "W");
  expect(0x200, 0, 0, "P");
  expect(0x400, 0, 0, "N");
  expect(0x1000, 0, 0, "R");   /* 4.8's preemption bit means nothing here */
  expect(0xffff, 0, 0, "SDT"); /* every flag: the first three letters are kept */
  expect(0x20, 4, 4, "Z");
}

static void layout_4_8(void **state) {
  (void)state;
  expect(0x1000, 4, 9, "R+");
  expect(0x800, 4, 9, "R");
  expect(0x402, 4, 8, "I");
}

/* 4.14 and later: PARKED 0x40, REPORT_TASK_IDLE 0x80, preemption 0x100, higher bits invalid. */
static void layout_4_14(void **state) {
  (void)state;
  expect(0x100, 5, 15, "R+");
  expect(0x80, 5, 15, "I");
  expect(0x40, 4, 14, "P");
  expect(0x82, 6, 1, "DI");
  expect(0x102, 5, 4, "D");
  expect(0x200, 5, 4, NULL);
  expect(0xffff, 5, 4, NULL);
}

static void from_systrace(void **state) {
  (void)state;
  static const struct {
    const char *text;
    uint16_t raw;
  } cases[] = {{"S", 0x1},    {"D", 0x2},   {"D|K", 0x82}, {"DK", 0x82},   {"R", 0},
               {"R+", 0x800}, {"R+x", 0},   {"Rz", 0},     {"I", 0x402},   {"x", 0x40},
               {"P", 0x200},  {"|", 0},     {"", 0xffff},  {"SR", 0xffff}, {"S+", 0xffff},
               {"Q", 0xffff}, {"s", 0xffff}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    uint16_t got = trak__task_state_from_systrace(cases[i].text, strlen(cases[i].text));
    if (got != cases[i].raw)
      fail_msg("'%s': got 0x%x, want 0x%x", cases[i].text, got, cases[i].raw);
  }
  /* Round trips through the 4.4 layout, as the systrace import decodes them. */
  static const char *round[] = {"S", "D", "DK", "R", "R+", "I", "x", "W", "P", "N", "T", "t"};
  for (size_t i = 0; i < sizeof round / sizeof *round; i++)
    expect(trak__task_state_from_systrace(round[i], strlen(round[i])), 0, 0, round[i]);
  /* Unreadable text decodes as all flags: Perfetto then stores "SDT". */
  expect(trak__task_state_from_systrace("?", 1), 0, 0, "SDT");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(layout_4_4),
      cmocka_unit_test(layout_4_8),
      cmocka_unit_test(layout_4_14),
      cmocka_unit_test(from_systrace),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
