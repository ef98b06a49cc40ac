/*
** hostile_gen: writes the hostile traces of tests/cli/hostile.sh on stdout, so that the test
** data is generated at test time and small on disk. `hostile_gen CASE` where CASE is:
**   nested N      compressed_packets inside compressed_packets, N deep, a track descriptor
**                 packet at every level
**   bomb N        N compressed_packets of 4 MiB each (padding packets), 4 KiB compressed each
**   bomb1 MIB     one compressed_packets inflating to MIB MiB
**   bigpacket MIB a descriptor, a packet of MIB MiB (unknown field), a descriptor
**   deep_args N   one event whose debug annotation dict is nested N deep
**   long_key N    one event with a debug annotation named by N bytes
**   padding MIB   MIB MiB of 4 KiB packets (an unknown field of zeros), written in pieces
**   json_long MIB a JSON trace: an event with a string arg of MIB MiB, then a small event
**   text_long MIB a text trace: a descriptor named by MIB MiB of x, then another descriptor
**   idle N        opens N connections to the daemon at $TRAK_SOCKET that never say anything,
**                 holds them for 5 s, prints how many connected
**   fake_loss N   connects to the daemon as a producer and claims N packets lost while away
**   sanitized     prints 1 if built with a sanitizer (memory limits then do not apply), else 0
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <zlib.h>

typedef struct buf {
  uint8_t *v;
  size_t n, cap;
} buf;

static void put(buf *b, const void *data, size_t len) {
  if (b->n + len > b->cap) {
    b->cap = (b->n + len) * 2 + 64;
    b->v = realloc(b->v, b->cap);
    if (!b->v) abort();
  }
  memcpy(b->v + b->n, data, len);
  b->n += len;
}

static void varint(buf *b, uint64_t v) {
  uint8_t t[10];
  size_t n = 0;
  do {
    t[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
    v >>= 7;
  } while (v);
  put(b, t, n);
}

static void field_len(buf *b, uint32_t number, const void *data, size_t len) {
  varint(b, (uint64_t)number << 3 | 2);
  varint(b, len);
  put(b, data, len);
}

static void field_varint(buf *b, uint32_t number, uint64_t v) {
  varint(b, (uint64_t)number << 3);
  varint(b, v);
}

/* TracePacket{track_descriptor{uuid, name "t<uuid>"}} as a Trace.packet field. */
static void descriptor_packet(buf *out, uint64_t uuid) {
  buf td = {0}, pkt = {0};
  char name[32];
  int n = snprintf(name, sizeof name, "t%llu", (unsigned long long)uuid);
  field_varint(&td, 1, uuid);
  field_len(&td, 2, name, (size_t)n);
  field_len(&pkt, 60, td.v, td.n);
  field_len(out, 1, pkt.v, pkt.n);
  free(td.v), free(pkt.v);
}

/* A descriptor packet and an instant event on its track: a track becomes a row of `track` only
** once an event uses it (as in Perfetto), so the tests count tracks that each have one. */
static void track_packets(buf *out, uint64_t uuid) {
  buf ev = {0}, pkt = {0};
  descriptor_packet(out, uuid);
  field_varint(&ev, 9, 3);     /* type: TYPE_INSTANT */
  field_varint(&ev, 11, uuid); /* track_uuid */
  field_len(&ev, 23, "e", 1);  /* name */
  field_varint(&pkt, 8, 10);   /* timestamp */
  field_varint(&pkt, 10, 7);   /* trusted_packet_sequence_id */
  field_len(&pkt, 11, ev.v, ev.n);
  field_len(out, 1, pkt.v, pkt.n);
  free(ev.v), free(pkt.v);
}

/* zlib-compresses `in` (level 0 when `store`, for speed on incompressible nesting). */
static void zlib_of(const buf *in, int level, buf *out) {
  uLongf cap = compressBound(in->n);
  out->v = malloc(cap);
  if (!out->v || compress2(out->v, &cap, in->v, in->n, level) != Z_OK) abort();
  out->n = out->cap = cap;
}

/* A Trace.packet holding compressed_packets (TracePacket field 50) of `inner`. */
static void compressed_packet(buf *out, const buf *inner, int level) {
  buf z = {0}, pkt = {0};
  zlib_of(inner, level, &z);
  field_len(&pkt, 50, z.v, z.n);
  field_len(out, 1, pkt.v, pkt.n);
  free(z.v), free(pkt.v);
}

static void nested(int depth) {
  buf cur = {0};
  track_packets(&cur, (uint64_t)depth + 1);
  for (int i = depth; i > 0; i--) {
    buf next = {0};
    track_packets(&next, (uint64_t)i);
    compressed_packet(&next, &cur, 0);
    free(cur.v);
    cur = next;
  }
  fwrite(cur.v, 1, cur.n, stdout);
  free(cur.v);
}

/* Trace.packet fields of 4 KiB each (an unknown field of zeros) filling `bytes`. */
static void padding_packets(buf *out, size_t bytes) {
  static uint8_t zeros[4090];
  buf pkt = {0};
  field_len(&pkt, 9999, zeros, sizeof zeros);
  while (out->n + pkt.n + 4 <= bytes)
    field_len(out, 1, pkt.v, pkt.n);
  free(pkt.v);
}

static void bomb(int count) {
  buf plain = {0}, one = {0};
  padding_packets(&plain, 4u << 20);
  compressed_packet(&one, &plain, 9);
  track_packets(&one, 1);
  for (int i = 0; i < count; i++)
    fwrite(one.v, 1, one.n, stdout);
  free(plain.v), free(one.v);
}

/* One compressed_packets of `mib` MiB, deflated in a stream (the plain bytes never exist). */
static void bomb1(int mib) {
  buf plain = {0}, z = {0};
  padding_packets(&plain, 1u << 20);
  z_stream s;
  memset(&s, 0, sizeof s);
  if (deflateInit(&s, 9) != Z_OK) abort();
  uint8_t out[1 << 16];
  for (int i = 0; i <= mib; i++) {
    s.next_in = plain.v;
    s.avail_in = (uInt)plain.n;
    int flush = i == mib ? Z_FINISH : Z_NO_FLUSH;
    if (i == mib) s.avail_in = 0;
    int rc;
    do {
      s.next_out = out;
      s.avail_out = sizeof out;
      rc = deflate(&s, flush);
      put(&z, out, sizeof out - s.avail_out);
    } while (s.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
  }
  deflateEnd(&s);
  buf pkt = {0}, trace = {0};
  field_len(&pkt, 50, z.v, z.n);
  field_len(&trace, 1, pkt.v, pkt.n);
  track_packets(&trace, 1);
  fwrite(trace.v, 1, trace.n, stdout);
  free(plain.v), free(z.v), free(pkt.v), free(trace.v);
}

/* A descriptor, a packet of `mib` MiB, a descriptor: written in pieces, never held whole. */
static void bigpacket(int mib) {
  buf head = {0}, pkt_head = {0};
  uint64_t body = (uint64_t)mib << 20;
  track_packets(&head, 1);
  varint(&pkt_head, 9999u << 3 | 2); /* an unknown TracePacket field holding the bytes */
  varint(&pkt_head, body);
  varint(&head, 1u << 3 | 2);
  varint(&head, pkt_head.n + body);
  put(&head, pkt_head.v, pkt_head.n);
  fwrite(head.v, 1, head.n, stdout);
  static uint8_t zeros[1 << 16];
  for (uint64_t left = body; left;) {
    size_t n = left < sizeof zeros ? (size_t)left : sizeof zeros;
    fwrite(zeros, 1, n, stdout);
    left -= n;
  }
  buf tail = {0};
  track_packets(&tail, 2);
  fwrite(tail.v, 1, tail.n, stdout);
  free(head.v), free(pkt_head.v), free(tail.v);
}

/* A descriptor (uuid 1) and an instant event on it with one debug annotation `annotation`. */
static void event_with(const buf *annotation) {
  buf trace = {0}, ev = {0}, pkt = {0};
  descriptor_packet(&trace, 1);
  field_varint(&ev, 9, 3);                         /* type: TYPE_INSTANT */
  field_varint(&ev, 11, 1);                        /* track_uuid */
  field_len(&ev, 23, "e", 1);                      /* name */
  field_len(&ev, 4, annotation->v, annotation->n); /* debug_annotations */
  field_varint(&pkt, 8, 10);                       /* timestamp */
  field_varint(&pkt, 10, 7);                       /* trusted_packet_sequence_id */
  field_len(&pkt, 11, ev.v, ev.n);                 /* track_event */
  field_len(&trace, 1, pkt.v, pkt.n);
  fwrite(trace.v, 1, trace.n, stdout);
  free(trace.v), free(ev.v), free(pkt.v);
}

/* DebugAnnotation: name 10, int_value 4, dict_entries 11. */
static void deep_args(int depth) {
  buf cur = {0};
  field_len(&cur, 10, "k", 1);
  field_varint(&cur, 4, 42);
  for (int i = 0; i < depth; i++) {
    buf next = {0};
    field_len(&next, 10, "k", 1);
    field_len(&next, 11, cur.v, cur.n);
    free(cur.v);
    cur = next;
  }
  event_with(&cur);
  free(cur.v);
}

static void long_key(int len) {
  buf a = {0};
  char *name = malloc((size_t)len);
  if (!name) abort();
  memset(name, 'k', (size_t)len);
  field_len(&a, 10, name, (size_t)len);
  field_varint(&a, 4, 42);
  event_with(&a);
  free(name), free(a.v);
}

static void padding(int mib) {
  buf one = {0};
  padding_packets(&one, 4096 + 8); /* one packet */
  for (uint64_t left = (uint64_t)mib << 20; left >= one.n; left -= one.n)
    fwrite(one.v, 1, one.n, stdout);
  free(one.v);
}

static void json_long(int mib) {
  fputs("{\"traceEvents\":[{\"name\":\"big\",\"ph\":\"X\",\"ts\":1,\"dur\":1,\"pid\":1,"
        "\"tid\":1,\"args\":{\"s\":\"",
        stdout);
  static char xs[1 << 16];
  memset(xs, 'x', sizeof xs);
  for (int i = 0; i < mib * 16; i++)
    fwrite(xs, 1, sizeof xs, stdout);
  fputs("\"}},\n{\"name\":\"after\",\"ph\":\"X\",\"ts\":5,\"dur\":1,\"pid\":1,\"tid\":1}]}\n",
        stdout);
}

static void text_long(int mib) {
  fputs("packet { track_descriptor { uuid: 1 name: \"", stdout);
  static char xs[1 << 16];
  memset(xs, 'x', sizeof xs);
  for (int i = 0; i < mib * 16; i++)
    fwrite(xs, 1, sizeof xs, stdout);
  fputs("\" } }\npacket { track_descriptor { uuid: 2 name: \"after\" } }\n"
        "packet { timestamp: 10 trusted_packet_sequence_id: 7 "
        "track_event { type: TYPE_INSTANT track_uuid: 2 name: \"e\" } }\n",
        stdout);
}

static int daemon_connect(int nonblock) {
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  const char *path = getenv("TRAK_SOCKET");
  if (!path || strlen(path) >= sizeof addr.sun_path) return -1;
  strcpy(addr.sun_path, path);
  int fd = socket(AF_UNIX, SOCK_SEQPACKET | (nonblock ? SOCK_NONBLOCK : 0), 0);
  if (fd < 0) return -1;
  if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

static void idle(int n) {
  int connected = 0;
  for (int i = 0; i < n; i++)
    connected += daemon_connect(1) >= 0; /* kept open until exit */
  printf("%d\n", connected);
  fflush(stdout);
  sleep(5);
}

/* IpcMessage{hello{process_name "liar", data_sources "track_event"}}, then after the welcome
** IpcMessage{lost_while_away{packets N}}. */
static int fake_loss(uint64_t packets) {
  int fd = daemon_connect(0);
  if (fd < 0) return 1;
  buf hello = {0}, msg = {0};
  field_len(&hello, 1, "liar", 4);
  field_len(&hello, 2, "track_event", 11);
  field_len(&msg, 1, hello.v, hello.n);
  if (send(fd, msg.v, msg.n, 0) < 0) return 1;
  uint8_t rx[1 << 16];
  if (recv(fd, rx, sizeof rx, 0) <= 0) return 1; /* the welcome */
  buf lost = {0}, msg2 = {0};
  field_varint(&lost, 1, packets);
  field_len(&msg2, 14, lost.v, lost.n);
  if (send(fd, msg2.v, msg2.n, 0) < 0) return 1;
  usleep(500000);
  close(fd);
  free(hello.v), free(msg.v), free(lost.v), free(msg2.v);
  return 0;
}

static int sanitized(void) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  return 1;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
  return 1;
#endif
#endif
  return 0;
}

/* The cases that take one count. */
static const struct {
  const char *name;
  void (*write)(int n);
} cases[] = {{"nested", nested},       {"bomb", bomb},
             {"bomb1", bomb1},         {"bigpacket", bigpacket},
             {"deep_args", deep_args}, {"long_key", long_key},
             {"padding", padding},     {"json_long", json_long},
             {"text_long", text_long}, {"idle", idle}};

int main(int argc, char **argv) {
  const char *what = argc > 1 ? argv[1] : "";
  if (!strcmp(what, "sanitized")) {
    printf("%d\n", sanitized());
    return 0;
  }
  if (argc > 2 && !strcmp(what, "fake_loss")) return fake_loss(strtoull(argv[2], NULL, 10));
  for (size_t i = 0; argc > 2 && i < sizeof cases / sizeof *cases; i++)
    if (!strcmp(what, cases[i].name)) {
      cases[i].write(atoi(argv[2]));
      return fflush(stdout) ? 1 : 0;
    }
  fprintf(stderr, "usage: hostile_gen CASE N (the cases are listed at the top of the file)\n");
  return 2;
}
