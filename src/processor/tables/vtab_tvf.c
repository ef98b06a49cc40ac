/*
** This file holds the planning every table-valued function shares: connect, disconnect, and the
** xBestIndex that binds hidden argument columns given as equalities (contracts in vtab_tvf.h).
*/
#include "processor/tables/vtab_tvf.h"

#include <string.h>

int trak__tvf_connect(sqlite3 *db, const char *schema, size_t size, size_t field, const void *ptr,
                      sqlite3_vtab **out) {
  int rc = schema ? sqlite3_declare_vtab(db, schema) : SQLITE_NOMEM;
  if (rc != SQLITE_OK) return rc;
  sqlite3_vtab *v = sqlite3_malloc64(size);
  if (!v) return SQLITE_NOMEM;
  memset(v, 0, size);
  if (field) memcpy((char *)v + field, &ptr, sizeof ptr);
  *out = v;
  return SQLITE_OK;
}

int trak__tvf_disconnect(sqlite3_vtab *vt) {
  sqlite3_free(vt);
  return SQLITE_OK;
}

int trak__tvf_best_index(sqlite3_index_info *info, const trak_tvf_args *a) {
  int at[16] = {0}; /* argument -> its constraint + 1, 0 when not given */
  unsigned given = 0;
  for (int i = 0; i < info->nConstraint; i++) {
    const struct sqlite3_index_constraint *c = &info->aConstraint[i];
    int k = c->iColumn - a->first;
    if (k < 0 || k >= a->n || c->op != SQLITE_INDEX_CONSTRAINT_EQ || (given >> k & 1)) continue;
    if (!c->usable) return SQLITE_CONSTRAINT;
    at[k] = i + 1;
    given |= 1u << k;
  }
  if ((given & a->required) != a->required) return SQLITE_CONSTRAINT;
  int next = 1;
  for (int k = 0; k < a->n; k++) {
    if (!at[k]) continue;
    info->aConstraintUsage[at[k] - 1].argvIndex = next++;
    info->aConstraintUsage[at[k] - 1].omit = 1;
  }
  info->idxNum = (int)given;
  if (!given) {
    info->estimatedCost = 1e12;
    return SQLITE_OK;
  }
  info->estimatedCost = a->cost;
  if (a->rows) info->estimatedRows = a->rows;
  if (a->unique) info->idxFlags |= SQLITE_INDEX_SCAN_UNIQUE;
  return SQLITE_OK;
}
