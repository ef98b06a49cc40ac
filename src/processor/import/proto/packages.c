/*
** This file holds TracePacket.packages_list: the installed Android packages, rows of the
** package_list table (name, uid, debuggable, profileable_from_shell, version_code) as Perfetto's
** importer makes them. A package whose name an earlier list gave is not listed again; a field
** left out is 0 (the name: NULL). The packet's error flags set two stats, the last packet's standing.
*/
#include <string.h>

#include "processor/import/proto/proto.h"

/* One PackageInfo into a package_list row, unless its name is listed already. */
static void package(trak_importer *imp, const uint8_t *data, size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  trak_span name = {(const uint8_t *)"", 0};
  int has_name = 0;
  trak_package_row row = {0};
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    int varint = f.wire_type == TRAK_PB_WIRE_VARINT;
    if (f.number == TRAK_PB_PackagesList_PackageInfo_name && f.wire_type == TRAK_PB_WIRE_LEN)
      name = (trak_span){f.data, f.len}, has_name = 1;
    else if (f.number == TRAK_PB_PackagesList_PackageInfo_uid && varint)
      row.uid = (int64_t)f.value;
    else if (f.number == TRAK_PB_PackagesList_PackageInfo_debuggable && varint)
      row.debuggable = f.value != 0;
    else if (f.number == TRAK_PB_PackagesList_PackageInfo_profileable_from_shell && varint)
      row.profileable_from_shell = f.value != 0;
    else if (f.number == TRAK_PB_PackagesList_PackageInfo_version_code && varint)
      row.version_code = (int64_t)f.value;
  }
  /* a package without a name has a NULL name, and is the same package as one named "" */
  uint32_t key = trak__strpool_intern(&imp->tables->strings, (const char *)name.data, name.len);
  row.name = has_name ? key : 0;
  int added = 0;
  trak__map_put(&imp->package_names, key, 1, &added);
  if (added) trak_vec_push(imp->packages, row);
}

void trak__packages_list_packet(trak_importer *imp, const uint8_t *data, size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  int64_t parse_error = 0, read_error = 0;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number == TRAK_PB_PackagesList_packages && f.wire_type == TRAK_PB_WIRE_LEN)
      package(imp, f.data, f.len);
    else if (f.number == TRAK_PB_PackagesList_parse_error && f.wire_type == TRAK_PB_WIRE_VARINT)
      parse_error = f.value != 0;
    else if (f.number == TRAK_PB_PackagesList_read_error && f.wire_type == TRAK_PB_WIRE_VARINT)
      read_error = f.value != 0;
  }
  imp->stats[TRAK_STAT_PACKAGES_LIST_PARSE_ERRORS] = parse_error;
  imp->stats[TRAK_STAT_PACKAGES_LIST_READ_ERRORS] = read_error;
}
