/*
** This file holds the viewer's lookup of a loopback peer's uid. For TCP, unlike a Unix socket,
** SO_PEERCRED says nothing; but both ends of a loopback connection are sockets of this machine,
** and /proc/net/tcp lists each with its owner's uid. The peer's socket is the line whose local
** address is our peer's and whose remote address is ours.
*/
#include "ui/peer.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <sys/socket.h>

int64_t trak__ui_peer_uid(int fd) {
  struct sockaddr_in me, peer;
  socklen_t n1 = sizeof me, n2 = sizeof peer;
  if (getsockname(fd, (struct sockaddr *)&me, &n1) ||
      getpeername(fd, (struct sockaddr *)&peer, &n2) || me.sin_family != AF_INET ||
      peer.sin_family != AF_INET)
    return -1;
  FILE *f = fopen("/proc/net/tcp", "re");
  if (!f) return -1;
  char line[512];
  int64_t uid = -1;
  if (!fgets(line, sizeof line, f)) line[0] = 0; /* the header */
  while (uid < 0 && fgets(line, sizeof line, f)) {
    /* "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid ..."
    ** Addresses are the raw 32-bit value in hex, ports in host order. */
    unsigned laddr, lport, raddr, rport, u;
    if (sscanf(line, " %*u: %8X:%4X %8X:%4X %*X %*X:%*X %*X:%*X %*X %u", &laddr, &lport, &raddr,
               &rport, &u) != 5)
      continue;
    if (laddr == peer.sin_addr.s_addr && lport == ntohs(peer.sin_port) &&
        raddr == me.sin_addr.s_addr && rport == ntohs(me.sin_port))
      uid = u;
  }
  fclose(f);
  return uid;
}
