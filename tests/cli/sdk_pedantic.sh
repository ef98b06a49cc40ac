#!/usr/bin/env bash
# The public headers under strict ISO flags: a C file using every event macro compiles without a
# warning under -std=c11 -Wall -Wextra -Wpedantic -Werror (GCC and Clang), a C++ one under
# -std=c++17 -Wpedantic -Werror, and a non-literal event name fails with the message that points
# to the _DYNAMIC form, in both languages; with <trak/perfetto.h> an undeclared literal category
# fails to compile.
set -euo pipefail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
inc=(-I "$TRAK_SOURCE_DIR/include" -I "$TRAK_BINARY_DIR/gen")

cat > "$tmp/all.c" <<'C'
#include <stdbool.h>
#include <trak/trak.h>
TRAK_CATEGORY_DEFINE(cat_a, "a", "events");
TRAK_CATEGORY_DEFINE(cat_b, "b", NULL, "debug", "slow");
TRAK_CATEGORY_GROUP_DEFINE(cat_ab, "a,b");
TRAK_TEST_CATEGORY_PREFIXES("test");
static void cb(trak_event_ctx *ctx, void *user) { (void)ctx; (void)user; }
int main(void) {
  const char *dyn = "dyn";
  trak_track t = trak_track_counter("c", TRAK_UNIT_COUNT, 0);
  TRAK_EVENT(cat_a, "scoped");
  TRAK_EVENT(cat_ab, "scoped_args", TRAK_ARG("i", 1), TRAK_ARG("s", "x"), TRAK_ARG("b", (bool)1),
             TRAK_ARG("d", 0.5), TRAK_ARG("p", (void *)&t), TRAK_CALLBACK(cb, NULL));
  TRAK_EVENT_DYNAMIC(cat_a, dyn);
  TRAK_EVENT_DYNAMIC(cat_a, dyn, TRAK_ARG("u", 2u));
  TRAK_EVENT_BEGIN(cat_b, "begin");
  TRAK_EVENT_BEGIN(cat_b, "begin", TRAK_TRACK(t), TRAK_TIMESTAMP(trak_clock_now()));
  TRAK_EVENT_BEGIN_DYNAMIC(cat_b, dyn);
  TRAK_EVENT_END(cat_b);
  TRAK_EVENT_END(cat_b, TRAK_TRACK(t));
  TRAK_EVENT_INSTANT(cat_a, "instant");
  TRAK_EVENT_INSTANT(cat_a, "instant", TRAK_FLOW(1), TRAK_TERMINATING_FLOW(2));
  TRAK_EVENT_INSTANT_DYNAMIC(cat_a, dyn);
  TRAK_EVENT_INSTANT(cat_a, "nested", TRAK_ARG_DICT("d", TRAK_ARG("k", 1)),
                     TRAK_ARG_ARRAY("a", TRAK_VALUE(1), TRAK_VALUE_DICT(TRAK_ARG("k", 2))));
  TRAK_COUNTER(cat_a, t, 1);
  TRAK_COUNTER(cat_a, "by name", 2.5);
  TRAK_COUNTER(cat_a, "by name", 3, TRAK_TIMESTAMP(trak_clock_now()));
  return 0;
}
C
cp "$tmp/all.c" "$tmp/all.cpp"
for cc in gcc clang; do
  command -v $cc > /dev/null || continue
  $cc -std=c11 -Wall -Wextra -Wpedantic -Werror "${inc[@]}" -c "$tmp/all.c" -o "$tmp/all.o" ||
    { echo "$cc: the headers are not clean under -std=c11 -Wpedantic"; exit 1; }
done
for cxx in g++ clang++; do
  command -v $cxx > /dev/null || continue
  for std in c++11 c++17; do
    $cxx -std=$std -Wall -Wextra -Wpedantic -Werror "${inc[@]}" -c "$tmp/all.cpp" -o "$tmp/all.o" ||
      { echo "$cxx: the headers are not clean under -std=$std -Wpedantic"; exit 1; }
  done
done
echo "ok: the headers compile clean under -std=c11 / c++11 / c++17 -Wpedantic"

# A run-time name where a literal is required: the error says what to use instead.
for form in 'TRAK_EVENT(cat_a, name)' 'TRAK_EVENT_BEGIN(cat_a, name)' 'TRAK_EVENT_INSTANT(cat_a, name, TRAK_ARG("k", 1))'; do
  printf '#include <trak/trak.h>\nTRAK_CATEGORY_DEFINE(cat_a, "a", "events");\nvoid f(const char *name);\nvoid f(const char *name) { %s; }\n' \
    "$form" > "$tmp/bad.c"
  cp "$tmp/bad.c" "$tmp/bad.cpp"
  for compiler in gcc clang g++ clang++; do
    command -v $compiler > /dev/null || continue
    src="$tmp/bad.c"
    case $compiler in *++) src="$tmp/bad.cpp" ;; esac
    if $compiler "${inc[@]}" -c "$src" -o "$tmp/bad.o" 2> "$tmp/err"; then
      echo "$compiler: '$form' with a run-time name compiled"; exit 1
    fi
    grep -q 'the event name must be a string literal; for a name computed at run time use the _DYNAMIC form' "$tmp/err" ||
      { echo "$compiler: '$form': no readable message:"; cat "$tmp/err"; exit 1; }
  done
done
echo "ok: a run-time name fails with a message pointing to the _DYNAMIC form"

# <trak/perfetto.h>: a literal category must be declared in PERFETTO_DEFINE_CATEGORIES (as with
# Perfetto): declared, test-prefixed and DynamicCategory ones compile clean; an undeclared one
# fails in every event macro with a message saying where to declare it.
pf_head='#include <trak/perfetto.h>
PERFETTO_DEFINE_CATEGORIES(perfetto::Category("a"), perfetto::Category("b"),
                           perfetto::Category::Group("a,b"));
PERFETTO_DEFINE_TEST_CATEGORY_PREFIXES("test");'
cat > "$tmp/pf_good.cpp" <<CXX
$pf_head
int main() {
  perfetto::DynamicCategory dyn{"dyn"};
  TRACE_EVENT("a", "x");
  TRACE_EVENT(dyn, "y");
  TRACE_EVENT("test.any", "z");
  TRACE_EVENT("a,b", "group");
  TRACE_EVENT_BEGIN("b", "x");
  TRACE_EVENT_END("b");
  TRACE_EVENT_INSTANT(dyn, "i");
  TRACE_COUNTER("a", "c", 1);
  return TRACE_EVENT_CATEGORY_ENABLED("a") ? 1 : 0;
}
CXX
for cxx in g++ clang++; do
  command -v $cxx > /dev/null || continue
  $cxx -std=c++17 -Wall -Wextra -Wpedantic -Werror "${inc[@]}" -c "$tmp/pf_good.cpp" -o "$tmp/pf.o" ||
    { echo "$cxx: declared, test-prefixed or dynamic categories do not compile"; exit 1; }
done
for form in 'TRACE_EVENT("nope", "x")' 'TRACE_EVENT_BEGIN("nope", "x")' 'TRACE_EVENT_END("nope")' \
  'TRACE_EVENT_INSTANT("nope", "x", "k", 1)' 'TRACE_COUNTER("nope", "c", 1)'; do
  printf '%s\nvoid f();\nvoid f() { %s; }\n' "$pf_head" "$form" > "$tmp/pf_bad.cpp"
  for cxx in g++ clang++; do
    command -v $cxx > /dev/null || continue
    if $cxx -std=c++17 "${inc[@]}" -c "$tmp/pf_bad.cpp" -o "$tmp/pf.o" 2> "$tmp/err"; then
      echo "$cxx: '$form' with an undeclared category compiled"; exit 1
    fi
    grep -q 'unknown category: add it to PERFETTO_DEFINE_CATEGORIES, or name it at run time with perfetto::DynamicCategory' "$tmp/err" ||
      { echo "$cxx: '$form': no readable message:"; cat "$tmp/err"; exit 1; }
  done
done
echo "ok: an undeclared literal category fails to compile with a message naming PERFETTO_DEFINE_CATEGORIES"
