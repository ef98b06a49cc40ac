/*
** Lookups over the generated schema tables (gen/schema_tables.c): messages by name, fields by
** number or name, enum values both ways. The tables are small, so plain scans suffice except
** for field-by-number, which the binary printer calls for every field it meets.
*/
#include <string.h>

#include "pb/schema.h"
#include "trak/pb.h"

static const char PACKAGE_PREFIX[] = "perfetto.protos.";

const trak_pb_message_desc *trak__schema_message(const char *name) {
  size_t prefix = sizeof PACKAGE_PREFIX - 1;
  if (!strncmp(name, PACKAGE_PREFIX, prefix)) name += prefix;
  for (size_t i = 0; i < trak_pb_n_messages; i++)
    if (!strcmp(trak_pb_messages[i].full_name + prefix, name)) return &trak_pb_messages[i];
  return NULL;
}

const trak_pb_enum_desc *trak__schema_enum(const char *name) {
  size_t prefix = sizeof PACKAGE_PREFIX - 1;
  if (!strncmp(name, PACKAGE_PREFIX, prefix)) name += prefix;
  for (size_t i = 0; i < trak_pb_n_enums; i++)
    if (!strcmp(trak_pb_enums[i].full_name + prefix, name)) return &trak_pb_enums[i];
  return NULL;
}

const trak_pb_field_desc *trak__schema_field_by_number(const trak_pb_message_desc *msg,
                                                       uint32_t number) {
  uint32_t lo = 0, hi = msg->n_fields;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    uint32_t n = msg->fields[mid].number;
    if (n == number) return &msg->fields[mid];
    if (n < number)
      lo = mid + 1;
    else
      hi = mid;
  }
  return NULL;
}

const trak_pb_field_desc *trak__schema_field_by_name(const trak_pb_message_desc *msg,
                                                     const char *name, size_t len) {
  for (uint32_t i = 0; i < msg->n_fields; i++) {
    const char *f = msg->fields[i].name;
    if (!strncmp(f, name, len) && f[len] == 0) return &msg->fields[i];
  }
  return NULL;
}

const trak_pb_message_desc *trak__schema_field_message(const trak_pb_field_desc *field) {
  return field->type == TRAK_PB_TYPE_MESSAGE ? &trak_pb_messages[field->type_index] : NULL;
}

const trak_pb_enum_desc *trak__schema_field_enum(const trak_pb_field_desc *field) {
  return field->type == TRAK_PB_TYPE_ENUM ? &trak_pb_enums[field->type_index] : NULL;
}

int trak__schema_enum_number(const trak_pb_enum_desc *e, const char *name, size_t len,
                             int32_t *number) {
  for (uint32_t i = 0; i < e->n_values; i++) {
    const char *v = e->values[i].name;
    if (!strncmp(v, name, len) && v[len] == 0) {
      *number = e->values[i].number;
      return 0;
    }
  }
  return -1;
}

const char *trak__schema_enum_name(const trak_pb_enum_desc *e, int32_t number) {
  for (uint32_t i = 0; i < e->n_values; i++)
    if (e->values[i].number == number) return e->values[i].name;
  return NULL;
}

int trak__schema_mark_seen(trak_pb_seen_fields *seen, const trak_pb_message_desc *msg,
                           const trak_pb_field_desc *field) {
  size_t index = (size_t)(field - msg->fields);
  if (field->repeated || index >= sizeof seen->bits * 8) return 1;
  uint8_t mask = (uint8_t)(1u << (index % 8));
  if (seen->bits[index / 8] & mask) return 0;
  seen->bits[index / 8] |= mask;
  return 1;
}

uint32_t trak__schema_wire_type(uint8_t type) {
  switch (type) {
  case TRAK_PB_TYPE_DOUBLE:
  case TRAK_PB_TYPE_FIXED64:
  case TRAK_PB_TYPE_SFIXED64:
    return TRAK_PB_WIRE_FIXED64;
  case TRAK_PB_TYPE_FLOAT:
  case TRAK_PB_TYPE_FIXED32:
  case TRAK_PB_TYPE_SFIXED32:
    return TRAK_PB_WIRE_FIXED32;
  case TRAK_PB_TYPE_STRING:
  case TRAK_PB_TYPE_BYTES:
  case TRAK_PB_TYPE_MESSAGE:
    return TRAK_PB_WIRE_LEN;
  case TRAK_PB_TYPE_GROUP:
    return TRAK_PB_WIRE_SGROUP;
  default:
    return TRAK_PB_WIRE_VARINT;
  }
}
