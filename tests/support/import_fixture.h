/*
** A bare importer for unit tests of src/processor/import/ (no trace): the tables and the
** importer made by the setup, freed by the teardown, as cmocka fixtures.
*/
#ifndef TRAK_IMPORT_FIXTURE_H
#define TRAK_IMPORT_FIXTURE_H

#include "processor/import/importer.h"

typedef struct fixture {
  trak_tables tables;
  trak_importer imp;
} fixture;

/* cmocka setup: *state is a new fixture (test_calloc'd; an out-of-memory fails the test). */
static inline int import_fixture_setup(void **state) {
  fixture *f = test_calloc(1, sizeof *f);
  trak__tables_init(&f->tables);
  trak__importer_init(&f->imp, &f->tables, NULL, NULL, 0);
  *state = f;
  return 0;
}

/* cmocka teardown of import_fixture_setup's fixture. */
static inline int import_fixture_teardown(void **state) {
  fixture *f = *state;
  trak__importer_free(&f->imp);
  trak__tables_free(&f->tables);
  test_free(f);
  return 0;
}

#endif /* TRAK_IMPORT_FIXTURE_H */
