/*
** The runtime schema: every message and enum of the .proto files in protos/ as static tables
** generated at
** build time (gen/schema_tables.c, written by protogen.c). The text format parser and printer
** walk these tables; nothing here is typed by hand.
*/
#ifndef TRAK_PB_SCHEMA_H
#define TRAK_PB_SCHEMA_H

#include <stddef.h>
#include <stdint.h>

/* Field types, named as in descriptor.proto's FieldDescriptorProto.Type. */
enum trak_pb_type {
  TRAK_PB_TYPE_DOUBLE = 1,
  TRAK_PB_TYPE_FLOAT,
  TRAK_PB_TYPE_INT64,
  TRAK_PB_TYPE_UINT64,
  TRAK_PB_TYPE_INT32,
  TRAK_PB_TYPE_FIXED64,
  TRAK_PB_TYPE_FIXED32,
  TRAK_PB_TYPE_BOOL,
  TRAK_PB_TYPE_STRING,
  TRAK_PB_TYPE_GROUP,
  TRAK_PB_TYPE_MESSAGE,
  TRAK_PB_TYPE_BYTES,
  TRAK_PB_TYPE_UINT32,
  TRAK_PB_TYPE_ENUM,
  TRAK_PB_TYPE_SFIXED32,
  TRAK_PB_TYPE_SFIXED64,
  TRAK_PB_TYPE_SINT32,
  TRAK_PB_TYPE_SINT64
};

typedef struct trak_pb_field_desc {
  const char *name; /* as in the .proto: "track_uuid" */
  uint32_t number;
  uint8_t type;       /* enum trak_pb_type */
  uint8_t repeated;   /* 1 for repeated fields */
  uint8_t packed;     /* 1 when declared [packed = true] */
  int32_t type_index; /* MESSAGE: index in trak_pb_messages; ENUM: in trak_pb_enums; else -1 */
} trak_pb_field_desc;

typedef struct trak_pb_message_desc {
  const char *full_name;            /* "perfetto.protos.TracePacket" */
  const trak_pb_field_desc *fields; /* sorted by field number */
  uint32_t n_fields;
} trak_pb_message_desc;

typedef struct trak_pb_enum_value_desc {
  const char *name;
  int32_t number;
} trak_pb_enum_value_desc;

typedef struct trak_pb_enum_desc {
  const char *full_name;
  const trak_pb_enum_value_desc *values; /* in declaration order */
  uint32_t n_values;
} trak_pb_enum_desc;

extern const trak_pb_message_desc trak_pb_messages[];
extern const size_t trak_pb_n_messages;
extern const trak_pb_enum_desc trak_pb_enums[];
extern const size_t trak_pb_n_enums;

/* Finds a message by full name ("perfetto.protos.Trace") or by its name without the package
** ("Trace", "TrackEvent.LegacyEvent"). Returns NULL if there is none. */
const trak_pb_message_desc *trak__schema_message(const char *name);

/* Finds an enum by full name or by its name without the package ("ChromeEnums.ThreadType").
** NULL if there is none. */
const trak_pb_enum_desc *trak__schema_enum(const char *name);

/* Finds a field by number (binary search) or by name. NULL if absent. */
const trak_pb_field_desc *trak__schema_field_by_number(const trak_pb_message_desc *msg,
                                                       uint32_t number);
const trak_pb_field_desc *trak__schema_field_by_name(const trak_pb_message_desc *msg,
                                                     const char *name, size_t len);

/* The message or enum a MESSAGE / ENUM field refers to. */
const trak_pb_message_desc *trak__schema_field_message(const trak_pb_field_desc *field);
const trak_pb_enum_desc *trak__schema_field_enum(const trak_pb_field_desc *field);

/* Enum value lookups. By name returns 0 and fills *number, or -1. By number returns the first
** value's name or NULL. */
int trak__schema_enum_number(const trak_pb_enum_desc *e, const char *name, size_t len,
                             int32_t *number);
const char *trak__schema_enum_name(const trak_pb_enum_desc *e, int32_t number);

/* Which non-repeated fields of one message have been met (the text format allows each once). */
typedef struct trak_pb_seen_fields {
  uint8_t bits[512]; /* by field index; fields past index 4095 are not tracked */
} trak_pb_seen_fields;

/* Records that `field` of `msg` was met. Returns 1 the first time, 0 on a repeat of a
** non-repeated field. Repeated fields always give 1. */
int trak__schema_mark_seen(trak_pb_seen_fields *seen, const trak_pb_message_desc *msg,
                           const trak_pb_field_desc *field);

/* The wire type a field of this type is encoded with when not packed. */
uint32_t trak__schema_wire_type(uint8_t type);

#endif /* TRAK_PB_SCHEMA_H */
