/*
** The eight-step category rule of TrackEventConfig, table-driven: each row names the step
** that must decide it, so every step (and the fall-through default) is covered, including
** exact-before-pattern, enabled-before-disabled and categories-before-tags precedence.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "trak/trak.h"

#define L(...) ((const char *const[]){__VA_ARGS__, NULL})
#define NONE ((const char *const[]){NULL})

typedef struct row {
  const char *why;
  const char *name;
  const char *tags[TRAK_MAX_TAGS];
  trak_category_config cfg;
  int expect;
} row;

static const row rows[] = {
    {"default: nothing matches -> enabled", "foo", {0}, {0}, 1},
    {"default disabled tags: debug", "foo", {"debug"}, {0}, 0},
    {"default disabled tags: slow", "foo", {"slow"}, {0}, 0},
    {"empty disabled_tags list: debug allowed", "foo", {"debug"}, {0, 0, 0, NONE}, 1},
    {"1 exact enabled category beats exact disabled", "foo", {0}, {L("foo"), L("foo"), 0, 0}, 1},
    {"1 exact enabled category beats disabled tag", "foo", {"slow"}, {L("foo"), 0, 0, 0}, 1},
    {"2 exact enabled tag beats exact disabled category",
     "foo",
     {"t"},
     {0, L("foo"), L("t"), 0},
     1},
    {"2 exact enabled tag beats exact disabled tag", "foo", {"slow"}, {0, 0, L("slow"), 0}, 1},
    {"3 exact disabled category beats pattern enabled category",
     "foo",
     {0},
     {L("f*"), L("foo"), 0, 0},
     0},
    {"3 exact disabled category beats pattern enabled tag",
     "foo",
     {"tag"},
     {0, L("foo"), L("t*"), 0},
     0},
    {"4 exact disabled tag beats pattern enabled category",
     "foo",
     {"bad"},
     {L("*"), 0, 0, L("bad")},
     0},
    {"4 exact disabled tag beats pattern enabled tag",
     "foo",
     {"bad"},
     {0, 0, L("b*"), L("bad")},
     0},
    {"5 pattern enabled category beats pattern disabled category",
     "foo.bar",
     {0},
     {L("foo.*"), L("*"), 0, 0},
     1},
    {"5 pattern enabled category beats pattern disabled tag",
     "foo",
     {"slow"},
     {L("f?o"), 0, 0, L("s*")},
     1},
    {"6 pattern enabled tag beats pattern disabled category",
     "foo",
     {"gpu"},
     {0, L("*"), L("g*"), 0},
     1},
    {"6 pattern enabled tag beats pattern disabled tag",
     "foo",
     {"gpu"},
     {0, 0, L("g*"), L("*")},
     1},
    {"7 pattern disabled category", "foo", {0}, {L("bar"), L("*"), 0, 0}, 0},
    {"7 pattern disabled category beats pattern disabled tag order",
     "foo",
     {"x"},
     {0, L("f*"), 0, L("y")},
     0},
    {"8 pattern disabled tag", "foo", {"slowish"}, {0, 0, 0, L("slow*")}, 0},
    {"8 custom disabled tags replace the defaults", "foo", {"debug"}, {0, 0, 0, L("x*")}, 1},
    {"enable just specific categories: listed", "bar", {0}, {L("foo", "bar"), L("*"), 0, 0}, 1},
    {"enable just specific categories: other", "baz", {0}, {L("foo", "bar"), L("*"), 0, 0}, 0},
    {"enable specific tags: tagged", "x", {"foo"}, {0, 0, L("foo", "bar"), L("*")}, 1},
    {"enable specific tags: untagged category still enabled",
     "x",
     {0},
     {0, 0, L("foo"), L("*")},
     1},
    {"enable specific tags: other tag", "x", {"baz"}, {0, 0, L("foo"), L("*")}, 0},
    {"glob ? and * across dots", "a.b.c", {0}, {0, L("a.?.*"), 0, 0}, 0},
    {"glob does not match a prefix only", "alpha", {0}, {0, L("alp"), 0, 0}, 1},
};

static void test_rules(void **state) {
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    trak_category cat;
    memset(&cat, 0, sizeof cat);
    cat.name = rows[i].name;
    memcpy(cat.tags, rows[i].tags, sizeof cat.tags);
    int got = trak_category_config_enables(&rows[i].cfg, &cat);
    if (got != rows[i].expect) fail_msg("row %zu (%s): got %d", i, rows[i].why, got);
  }
}

TRAK_CATEGORY_DEFINE(cat_gpu, "gpu", "GPU work", "slow");

static void test_groups(void **state) {
  trak_category group;
  memset(&group, 0, sizeof group);
  group.name = "gpu,net";
  trak_category_config none = {0};
  /* gpu is slow (default-disabled) but net is enabled by default. */
  assert_int_equal(trak_category_config_enables(&none, &group), 1);
  trak_category_config no_net = {0, L("net"), 0, 0};
  assert_int_equal(trak_category_config_enables(&no_net, &group), 0);
  trak_category_config slow_ok = {0, L("net"), L("slow"), 0};
  assert_int_equal(trak_category_config_enables(&slow_ok, &group), 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rules),
      cmocka_unit_test(test_groups),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
