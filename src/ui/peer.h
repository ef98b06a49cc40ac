/*
** This file declares the lookup of who is on the other end of a loopback TCP connection
** (peer.c): the uid that owns the peer's socket, as the kernel lists it in /proc/net/tcp. The
** viewer's guard caps connections per uid with it, since every local client shares 127.0.0.1.
*/
#ifndef TRAK_UI_PEER_H
#define TRAK_UI_PEER_H

#include <stdint.h>

/* The uid owning the socket at the other end of connected IPv4 TCP socket `fd`, when that
** socket is on this machine (loopback), or -1 when it cannot be told (not IPv4, not local,
** /proc unreadable). Reads /proc/net/tcp once: meant for each new connection, not each byte. */
int64_t trak__ui_peer_uid(int fd);

#endif
