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
**   json_deep N   a JSON trace: an event, an event whose args nest N arrays deep, an event
**   text_long MIB a text trace: a descriptor named by MIB MiB of x, then another descriptor
**   idle N        opens N connections to the daemon at $TRAK_SOCKET that never say anything,
**                 holds them for 5 s, prints how many connected
**   fake_loss N   connects to the daemon as a producer and claims N packets lost while away
**   scribbler N   a producer that joins the session running: claims 2^62 packets lost while
**                 away, then commits N chunks of 10 packets with scribbled headers (a new
**                 writer id and a jumping chunk index each) and loss counts alternating
**                 between 0 and 2^63; prints the packets it delivered
**   hold N        opens N producer connections (hello, welcome), prints "ready", holds them
**                 until its stdin ends
**   reconnect N   opens N producer connections (hello, welcome), stops the daemon ($DAEMON_PID)
**                 with SIGSTOP, closes them, connects again and asks for the service state,
**                 resumes the daemon; exits 0 if it got the state, 1 (printing why) if not
**   sanitized     prints 1 if built with a sanitizer (memory limits then do not apply), else 0
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <zlib.h>

typedef struct buf {
  uint8_t *v;
  size_t n, cap;
} buf;

static void put(buf *b, const void *data, size_t len) {
  if (!len) return; /* data may be NULL (an empty message) */
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

static void json_deep(int depth) {
  fputs("[{\"name\":\"before\",\"ph\":\"X\",\"ts\":1,\"dur\":1,\"pid\":1,\"tid\":1},\n"
        "{\"name\":\"deep\",\"ph\":\"X\",\"ts\":2,\"dur\":1,\"pid\":1,\"tid\":1,\"args\":{\"a\":",
        stdout);
  for (int i = 0; i < depth; i++)
    putchar('[');
  for (int i = 0; i < depth; i++)
    putchar(']');
  fputs("}},\n{\"name\":\"after\",\"ph\":\"X\",\"ts\":5,\"dur\":1,\"pid\":1,\"tid\":1}]\n", stdout);
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

/* Sends IpcMessage{hello{process_name `name`, data_sources "track_event"}} on a new connection
** and waits for the welcome. Returns the connection, or -1. */
static int hello(const char *name) {
  int fd = daemon_connect(0);
  if (fd < 0) return -1;
  buf h = {0}, msg = {0};
  field_len(&h, 1, name, strlen(name));
  field_len(&h, 2, "track_event", 11);
  field_len(&msg, 1, h.v, h.n);
  uint8_t rx[1 << 16];
  int ok = send(fd, msg.v, msg.n, 0) >= 0 && recv(fd, rx, sizeof rx, 0) > 0;
  free(h.v), free(msg.v);
  if (!ok) close(fd);
  return ok ? fd : -1;
}

/* Sends IpcMessage field `type` holding `body`. */
static int send_msg(int fd, uint32_t type, const buf *body) {
  buf msg = {0};
  field_len(&msg, type, body->v, body->n);
  int rc = send(fd, msg.v, msg.n, 0) < 0 ? -1 : 0;
  free(msg.v);
  return rc;
}

/* Reads a varint at *p (before end); 0 when cut. */
static uint64_t get_varint(const uint8_t **p, const uint8_t *end) {
  uint64_t v = 0;
  for (int shift = 0; *p < end && shift < 64; shift += 7) {
    uint8_t b = *(*p)++;
    v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) break;
  }
  return v;
}

/* Waits for an IpcMessage whose oneof field is `type`, skipping others; returns its body's
** length (copied to out) or -1. A file descriptor coming with it goes to *fd_out. */
static long recv_msg(int fd, uint32_t type, uint8_t *out, size_t cap, int *fd_out) {
  for (;;) {
    uint8_t rx[1 << 16];
    char cbuf[CMSG_SPACE(sizeof(int))];
    struct iovec io = {rx, sizeof rx};
    struct msghdr mh = {
        .msg_iov = &io, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf};
    ssize_t n = recvmsg(fd, &mh, 0);
    if (n <= 0) return -1;
    struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
    if (c && c->cmsg_type == SCM_RIGHTS && fd_out) memcpy(fd_out, CMSG_DATA(c), sizeof(int));
    const uint8_t *p = rx, *end = rx + n;
    uint64_t tag = get_varint(&p, end), len = get_varint(&p, end);
    if ((tag >> 3) != type) continue;
    if (len > (uint64_t)(end - p) || len > cap) return -1;
    memcpy(out, p, len);
    return (long)len;
  }
}

/* One Trace.packet: timestamp and previous_packet_dropped (a fake drop mark). */
static const uint8_t scribbled_packet[] = {0x0a, 0x05, 0x40, 0x05, 0xd0, 0x02, 0x01};

static int scribbler(int chunks) {
  enum { CHUNK = 4096, HEADER = 16, PACKETS = 10 };
  int fd = hello("scribbler");
  if (fd < 0) return 1;
  buf away = {0};
  field_varint(&away, 1, 1ull << 62);
  if (send_msg(fd, 14, &away)) return 1;
  free(away.v);
  uint8_t body[1 << 16];
  int memfd = -1;
  long n = recv_msg(fd, 2, body, sizeof body, &memfd); /* start_session */
  if (n < 0 || memfd < 0) return 1;
  uint64_t session = 0, size = 0;
  for (const uint8_t *p = body, *end = body + n; p < end;) {
    uint64_t tag = get_varint(&p, end);
    if ((tag & 7) == 2) {
      p += get_varint(&p, end);
      continue;
    }
    uint64_t v = get_varint(&p, end);
    if (tag >> 3 == 1) session = v;
    if (tag >> 3 == 3) size = v;
  }
  if (!session || !size || size % CHUNK) return 1;
  uint8_t *mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
  if (mem == MAP_FAILED) return 1;
  uint32_t nchunks = (uint32_t)(size / CHUNK);
  for (int r = 0; r < chunks; r++) {
    uint32_t i = (uint32_t)r % nchunks;
    uint8_t *c = mem + (size_t)i * CHUNK;
    uint32_t writer = 0xdeadbe00u + (uint32_t)r, cindex = (uint32_t)r * 1000003u;
    uint64_t fill = (uint64_t)PACKETS << 32 | PACKETS * sizeof scribbled_packet;
    memcpy(c, &writer, 4);
    memcpy(c + 4, &cindex, 4);
    for (int k = 0; k < PACKETS; k++)
      memcpy(c + HEADER + k * sizeof scribbled_packet, scribbled_packet, sizeof scribbled_packet);
    __atomic_store_n((uint64_t *)(c + 8), fill, __ATOMIC_RELEASE);
    buf commit = {0}, idx = {0};
    field_varint(&commit, 1, session);
    varint(&idx, i);
    field_len(&commit, 2, idx.v, idx.n);
    field_varint(&commit, 3, r % 2 ? 0 : (1ull << 63) + (uint64_t)r);
    if (send_msg(fd, 3, &commit) || recv_msg(fd, 4, body, sizeof body, NULL) < 0) return 1;
    free(commit.v), free(idx.v);
  }
  printf("%d\n", chunks * PACKETS);
  fflush(stdout);
  usleep(200000);
  close(fd);
  return 0;
}

/* Opens n producer connections into fds; 0, or 1 (printing which was refused). */
static int hello_all(int *fds, int n) {
  for (int i = 0; i < n; i++)
    if ((fds[i] = hello("holder")) < 0) {
      printf("connection %d of %d refused\n", i + 1, n);
      return 1;
    }
  return 0;
}

static int hold(int n) {
  int *fds = calloc((size_t)n, sizeof *fds);
  if (!fds || hello_all(fds, n)) return 1;
  printf("ready\n");
  fflush(stdout);
  char c;
  while (read(0, &c, 1) > 0) { /* until stdin ends */
  }
  free(fds);
  return 0;
}

static int reconnect(int n) {
  const char *pid_text = getenv("DAEMON_PID");
  pid_t daemon = pid_text ? (pid_t)atoi(pid_text) : 0;
  int *fds = calloc((size_t)n, sizeof *fds);
  if (!daemon || !fds) return 2;
  if (hello_all(fds, n)) return 1;
  /* The hang-ups and the new connection reach the daemon in one poll. */
  kill(daemon, SIGSTOP);
  for (int i = 0; i < n; i++)
    close(fds[i]);
  int fd = daemon_connect(0);
  buf none = {0};
  int sent = fd >= 0 && send_msg(fd, 15, &none) == 0; /* query_service */
  kill(daemon, SIGCONT);
  if (!sent) return 2;
  uint8_t rx[1 << 16];
  ssize_t got = recv(fd, rx, sizeof rx, 0);
  free(fds);
  if (got > 0 && rx[0] == (16 << 3 | 2)) return 0; /* service_state */
  printf("refused: ");
  for (ssize_t i = 0; i < got; i++) /* the IpcStatus error text, among its framing */
    if (rx[i] >= ' ' && rx[i] < 127) putchar(rx[i]);
  putchar('\n');
  return 1;
}

/* A producer "liar" that claims `packets` lost while away, after its welcome. */
static int fake_loss(uint64_t packets) {
  int fd = hello("liar");
  if (fd < 0) return 1;
  buf lost = {0};
  field_varint(&lost, 1, packets);
  if (send_msg(fd, 14, &lost)) return 1;
  usleep(500000);
  close(fd);
  free(lost.v);
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
} cases[] = {{"nested", nested},
             {"bomb", bomb},
             {"bomb1", bomb1},
             {"bigpacket", bigpacket},
             {"deep_args", deep_args},
             {"long_key", long_key},
             {"padding", padding},
             {"json_long", json_long},
             {"text_long", text_long},
             {"json_deep", json_deep},
             {"idle", idle}};

int main(int argc, char **argv) {
  const char *what = argc > 1 ? argv[1] : "";
  if (!strcmp(what, "sanitized")) {
    printf("%d\n", sanitized());
    return 0;
  }
  if (argc > 2 && !strcmp(what, "fake_loss")) return fake_loss(strtoull(argv[2], NULL, 10));
  if (argc > 2 && !strcmp(what, "scribbler")) return scribbler(atoi(argv[2]));
  if (argc > 2 && !strcmp(what, "reconnect")) return reconnect(atoi(argv[2]));
  if (argc > 2 && !strcmp(what, "hold")) return hold(atoi(argv[2]));
  for (size_t i = 0; argc > 2 && i < sizeof cases / sizeof *cases; i++)
    if (!strcmp(what, cases[i].name)) {
      cases[i].write(atoi(argv[2]));
      return fflush(stdout) ? 1 : 0;
    }
  fprintf(stderr, "usage: hostile_gen CASE N (the cases are listed at the top of the file)\n");
  return 2;
}
