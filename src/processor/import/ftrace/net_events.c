/*
** This file holds the kernel's networking events as Perfetto's ftrace parser reads them: each
** interface's bytes received and transmitted so far as KB counters, TCP sockets' states as
** slices on a track per stream, retransmissions as zero-length slices, GRO receives as slices on
** each CPU's "Napi Gro Cpu N" track, and the count of IP packets freed. The sums and the stream
** numbers follow the events' timestamp order: their events are queued.
*/
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "processor/import/ftrace/ftrace_internal.h"

/* Queued kinds (the record's `a`). */
enum { NET_RX, NET_TX, NET_SOCK, NET_KFREE };

struct trak_fnet {
  trak_map bytes_at;          /* (xmit << 32 | interface's string id) -> index in bytes + 1 */
  TRAK_VEC(uint64_t) bytes;   /* an interface's bytes so far */
  trak_map stream_at;         /* a socket's skaddr -> its stream number */
  uint32_t streams;           /* streams numbered so far */
  uint64_t kfree;             /* IP packets freed so far */
};

static struct trak_fnet *net_get(trak_importer *imp) {
  return trak__ftrace_part(imp, (void **)&trak__ftrace_get(imp)->net, sizeof(struct trak_fnet));
}

void trak__net_free(trak_ftrace *f) {
  if (!f->net) return;
  trak__map_free(&f->net->bytes_at), trak__map_free(&f->net->stream_at);
  trak_vec_free(f->net->bytes);
  free(f->net);
  f->net = NULL;
}

static void push(trak_importer *imp, trak_fq_rec *r) {
  r->type = TRAK_FQ_NET;
  trak__fq_push_seen(imp, r);
}

void trak__net_bytes(trak_importer *imp, uint32_t cpu, int64_t ts, int xmit, const char *dev,
                     size_t dev_len, uint32_t len) {
  trak_fq_rec r = {ts, len, cpu, 0, xmit ? NET_TX : NET_RX, 0, 0, 0, 0, 0, 0, 0};
  r.s1 = trak__strpool_intern(&imp->tables->strings, dev, dev_len);
  push(imp, &r);
}

void trak__inet_sock_state(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t pid,
                           uint64_t skaddr, int64_t protocol, int64_t family, int64_t newstate,
                           int64_t oldstate, uint32_t sport, uint32_t dport) {
  /* TCP (IPPROTO_TCP), over IP (AF_INET, AF_INET6), between states the kernel names */
  if (protocol != 6 || (family != 2 && family != 10)) return;
  if (newstate < 0 || newstate >= 13 || oldstate < 0 || oldstate >= 13) return;
  trak_fq_rec r = {ts, (int64_t)skaddr, cpu, pid, NET_SOCK, sport, dport, (int32_t)newstate, 0, 0,
                   0, 0};
  push(imp, &r);
}

void trak__kfree_skb(trak_importer *imp, uint32_t cpu, int64_t ts, uint64_t protocol) {
  if (protocol != 0x800 && protocol != 0x86dd) return; /* ETH_P_IP, ETH_P_IPV6 */
  trak_fq_rec r = {ts, 0, cpu, 0, NET_KFREE, 0, 0, protocol == 0x86dd, 0, 0, 0, 0};
  push(imp, &r);
}

void trak__tcp_retransmit(trak_importer *imp, int64_t ts, uint32_t sport, uint32_t dport) {
  char name[64];
  snprintf(name, sizeof name, "sport=%" PRIu32 ",dport=%" PRIu32, sport, dport);
  uint32_t track = trak__ftrace_global_track(imp, TRAK_TK_NET_TCP_RETRANSMIT_SKB, 0,
                                trak__ftrace_str(imp, "TCP Retransmit Skb"), 0);
  trak__ftrace_slice_ev(imp, ts, TRAK_EV_INSTANT, track, trak__ftrace_str(imp, name),
                        trak__ftrace_str(imp, "tcp_event"), TRAK_NULL_U32);
}

void trak__napi_gro_entry(trak_importer *imp, uint32_t cpu, int64_t ts, const char *name,
                          size_t len, int64_t bytes) {
  uint32_t set = trak__ftrace_args_begin(imp);
  trak__ftrace_arg_int(imp, set, trak__ftrace_str(imp, "len"), bytes);
  trak__ftrace_slice_ev(imp, ts, TRAK_EV_BEGIN, trak__ftrace_cpu_track(imp, TRAK_TK_CPU_NAPI_GRO, cpu),
                        trak__strpool_intern(&imp->tables->strings, name, len),
                        trak__ftrace_str(imp, "napi_gro"), trak__args_share(imp, set));
}

void trak__napi_gro_exit(trak_importer *imp, uint32_t cpu, int64_t ts, int64_t ret) {
  uint32_t set = trak__ftrace_args_begin(imp);
  trak__ftrace_arg_int(imp, set, trak__ftrace_str(imp, "ret"), ret);
  trak__ftrace_slice_ev(imp, ts, TRAK_EV_END, trak__ftrace_cpu_track(imp, TRAK_TK_CPU_NAPI_GRO, cpu),
                        0, trak__ftrace_str(imp, "napi_gro"), trak__args_share(imp, set));
}

/* An interface's bytes so far, with this event's. */
static void net_bytes_apply(trak_importer *imp, const trak_fq_rec *r) {
  struct trak_fnet *n = net_get(imp);
  int added, xmit = r->a == NET_TX;
  uint32_t *at = trak__map_put(&n->bytes_at, (uint64_t)xmit << 32 | r->s1, 0, &added);
  if (added) {
    trak_vec_push(n->bytes, 0);
    *at = (uint32_t)n->bytes.n;
  }
  uint64_t *sum = &n->bytes.v[*at - 1];
  *sum += (uint64_t)r->x;
  const char *dev = trak__str(&imp->tables->strings, r->s1);
  char name[300];
  snprintf(name, sizeof name, "%.254s %s", dev, xmit ? "Transmitted KB" : "Received KB");
  uint32_t track = trak__system_counter_track(
      imp, xmit ? TRAK_TK_NET_TRANSMIT : TRAK_TK_NET_RECEIVE, TRAK_NULL_U32, 0, r->s1,
      trak__ftrace_str(imp, name));
  uint32_t set = trak__ftrace_args_begin(imp);
  trak__ftrace_arg_uint(imp, set, trak__ftrace_str(imp, "cpu"), r->cpu);
  trak__ftrace_arg_uint(imp, set, trak__ftrace_str(imp, "len"), (uint64_t)r->x);
  trak__ftrace_counter_ev(imp, r->ts, track, (double)(*sum / 1024), trak__args_share(imp, set));
}

/* The kernel's TCP states by number (include/net/tcp_states.h). */
static const char *const tcp_states[] = {
    "TCP_UNKNOWN",    "TCP_ESTABLISHED", "TCP_SYN_SENT", "TCP_SYN_RECV", "TCP_FIN_WAIT1",
    "TCP_FIN_WAIT2",  "TCP_TIME_WAIT",   "TCP_CLOSE",    "TCP_CLOSE_WAIT", "TCP_LAST_ACK",
    "TCP_LISTEN",     "TCP_CLOSING",     "TCP_NEW_SYN_RECV"};

static void sock_apply(trak_importer *imp, const trak_fq_rec *r) {
  struct trak_fnet *n = net_get(imp);
  int added;
  uint32_t *stream = trak__map_put(&n->stream_at, (uint64_t)r->x, 0, &added);
  if (added) *stream = ++n->streams;
  char name[96];
  if (r->p1 == 2) /* TCP_SYN_SENT */
    snprintf(name, sizeof name, "%s(pid=%" PRIu32 ")", tcp_states[r->p1], r->pid);
  else if (r->p1 == 1) /* TCP_ESTABLISHED */
    snprintf(name, sizeof name, "%s(sport=%" PRIu32 ",dport=%" PRIu32 ")", tcp_states[r->p1],
             r->s1, r->s2);
  else
    snprintf(name, sizeof name, "%s", tcp_states[r->p1]);
  char track_name[48];
  snprintf(track_name, sizeof track_name, "TCP stream#%" PRIu32, *stream);
  uint32_t track = trak__ftrace_global_track(imp, TRAK_TK_NET_SOCKET_SET_STATE, *stream,
                                trak__ftrace_str(imp, track_name), 0);
  uint32_t cat = trak__ftrace_str(imp, "tcp_state");
  trak__ftrace_slice_ev(imp, r->ts, TRAK_EV_END, track, 0, 0, TRAK_NULL_U32);
  trak__ftrace_slice_ev(imp, r->ts, TRAK_EV_BEGIN, track, trak__ftrace_str(imp, name), cat,
                        TRAK_NULL_U32);
}

void trak__fa_net(trak_importer *imp, const trak_fq_rec *r) {
  switch (r->a) {
  case NET_RX:
  case NET_TX:
    net_bytes_apply(imp, r);
    return;
  case NET_SOCK:
    sock_apply(imp, r);
    return;
  default: { /* NET_KFREE */
    struct trak_fnet *n = net_get(imp);
    n->kfree++;
    uint32_t set = trak__ftrace_args_begin(imp);
    trak__ftrace_arg_str(imp, set, trak__ftrace_str(imp, "protocol"),
                         trak__ftrace_str(imp, r->p1 ? "IPV6" : "IP"));
    trak__ftrace_counter_ev(imp, r->ts,
                            trak__ftrace_global_track(imp, TRAK_TK_NET_KFREE_SKB, 0,
                                         trak__ftrace_str(imp, "Kfree Skb IP Prot"), 1),
                            (double)n->kfree, trak__args_share(imp, set));
    return;
  }
  }
}
