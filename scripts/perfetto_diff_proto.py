#!/usr/bin/env python3
"""Encodes and modifies Perfetto trace protos for scripts/perfetto_diff_tests.py, as Perfetto's
own diff test runner does (python/generators/diff_tests/trace_generator.py).

Run by a Python that has the protobuf package (the harness itself may not have it):
  perfetto_diff_proto.py encode DESCRIPTOR IN.textproto OUT.pb
      text proto -> binary Trace with Python's text_format, which knows the extensions in
      DESCRIPTOR (GPU, test, Chrome, Android frameworks) that protoc's Trace schema lacks
      and, as Perfetto's runner, lets the last member of a oneof win.
  perfetto_diff_proto.py inject DESCRIPTOR IN.pb OUT.pb TYPES_JSON FIELDS_JSON
      Perfetto's TraceInjector: every packet that has one of the fields TYPES gets FIELDS
      (e.g. {"machine_id": 1001}) set on it.
DESCRIPTOR is a FileDescriptorSet with Perfetto's trace protos and their extensions.
"""

import json
import sys

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, text_format


def trace_class(descriptor_path):
  """The perfetto.protos.Trace message class over the descriptor set, and its pool."""
  fds = descriptor_pb2.FileDescriptorSet()
  with open(descriptor_path, 'rb') as f:
    fds.ParseFromString(f.read())
  pool = descriptor_pool.DescriptorPool()
  for fd in fds.file:
    pool.Add(fd)
  desc = pool.FindMessageTypeByName('perfetto.protos.Trace')
  if hasattr(message_factory, 'GetMessageClass'):
    return message_factory.GetMessageClass(desc), pool
  return message_factory.MessageFactory(pool).GetPrototype(desc), pool


def main(argv):
  cmd, descriptor_path, src, dst = argv[1:5]
  cls, pool = trace_class(descriptor_path)
  trace = cls()
  if cmd == 'encode':
    with open(src) as f:
      text_format.Merge(f.read(), trace, descriptor_pool=pool)
  elif cmd == 'inject':
    types, fields = json.loads(argv[5]), json.loads(argv[6])
    with open(src, 'rb') as f:
      trace.ParseFromString(f.read())
    for p in trace.packet:
      if any(p.HasField(t) for t in types):
        for k, v in fields.items():
          setattr(p, k, v)
  else:
    sys.exit('unknown command %r' % cmd)
  with open(dst, 'wb') as f:
    f.write(trace.SerializeToString())


if __name__ == '__main__':
  main(sys.argv)
