/*
** A program that depends on an installed (or embedded) trak_processor: imports the trace named
** by its first argument and checks that it holds as many "Step" slices as the second says.
*/
#include <stdio.h>
#include <stdlib.h>

#include "trak/processor.h"

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: query TRACE EXPECTED_STEPS\n");
    return 2;
  }
  trak_processor *p;
  trak_query *q;
  trak_error err;
  if (trak_processor_open_file(argv[1], NULL, &p, &err)) {
    fprintf(stderr, "query: %s\n", err.message);
    return 1;
  }
  int rc = trak_query_open(p, "select count(*) from slice where name = 'Step'", &q, NULL, &err);
  if (!rc) rc = trak_query_next(q, &err);
  if (rc != 1) {
    fprintf(stderr, "query: %s\n", rc ? err.message : "no row");
    return 1;
  }
  int64_t steps = trak_query_int(q, 0);
  trak_query_free(q);
  trak_processor_free(p);
  printf("%lld Step slices\n", (long long)steps);
  return steps == atoll(argv[2]) ? 0 : 1;
}
