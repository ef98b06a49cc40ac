/*
** This file holds where the daemon's socket lives and who may be behind it: the default path
** ($TRAK_SOCKET, $XDG_RUNTIME_DIR/trak.sock, else trak.sock in a directory trak-$UID of $TMPDIR
** or /tmp that trak makes owner-only and checks), and the connection that refuses a daemon run
** by another user (SO_PEERCRED), so that no other user can stand in for a user's daemon.
*/
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "system/system.h"

/* The private directory of the default path, for this user: in $TMPDIR, else /tmp. */
static void private_dir(char *buf, size_t size) {
  const char *tmp = getenv("TMPDIR");
  snprintf(buf, size, "%s/trak-%u", tmp && *tmp == '/' ? tmp : "/tmp", (unsigned)geteuid());
}

void trak__ipc_default_path(char *buf, size_t size) {
  const char *env = getenv("TRAK_SOCKET"), *xdg = getenv("XDG_RUNTIME_DIR");
  char dir[108];
  private_dir(dir, sizeof dir);
  if (env && *env)
    snprintf(buf, size, "%s", env);
  else if (xdg && *xdg)
    snprintf(buf, size, "%s/trak.sock", xdg);
  else
    snprintf(buf, size, "%s/trak.sock", dir);
}

int trak__ipc_check_dir(const char *path, int create, trak_error *err) {
  char dir[108];
  private_dir(dir, sizeof dir);
  size_t n = strlen(dir);
  if (strncmp(path, dir, n) || path[n] != '/') return 0; /* not trak's directory */
  if (create && mkdir(dir, 0700) != 0 && errno != EEXIST)
    return trak_error_set(err, TRAK_EIO, "%s: %s", dir, strerror(errno));
  struct stat st;
  if (lstat(dir, &st) != 0) return 0; /* no daemon made it: connecting will say so */
  if (!S_ISDIR(st.st_mode))
    return trak_error_set(err, TRAK_EIO, "%s: is not a directory; refusing to use it", dir);
  if (st.st_uid != geteuid())
    return trak_error_set(err, TRAK_EIO,
                          "%s: belongs to uid %u, not to you (uid %u); refusing to use it "
                          "(remove it, or give --socket PATH)",
                          dir, (unsigned)st.st_uid, (unsigned)geteuid());
  if (st.st_mode & 077)
    return trak_error_set(err, TRAK_EIO,
                          "%s: other users may write to it (mode %03o); refusing to use it", dir,
                          (unsigned)(st.st_mode & 0777));
  return 0;
}

int trak__ipc_connect(const char *path) {
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  if (strlen(path) >= sizeof addr.sun_path) {
    errno = ENAMETOOLONG;
    return -1;
  }
  strcpy(addr.sun_path, path);
  int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  struct ucred cred;
  socklen_t len = sizeof cred;
  int e = 0;
  if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0)
    e = errno;
  else if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
    e = errno;
  else if (cred.uid != geteuid() && cred.uid != 0)
    e = EPERM; /* another user's daemon: it would receive this user's data */
  if (e) {
    close(fd);
    errno = e;
    return -1;
  }
  return fd;
}

int trak__ipc_connect_daemon(const char *path, trak_error *err) {
  int rc = trak__ipc_check_dir(path, 0, err);
  if (rc) return rc;
  int fd = trak__ipc_connect(path);
  if (fd >= 0) return fd;
  if (errno == EPERM)
    return trak_error_set(err, TRAK_EIO,
                          "%s: the daemon there runs as another user (not you, uid %u, nor "
                          "root); refusing to connect to it",
                          path, (unsigned)geteuid());
  return trak_error_set(err, TRAK_EIO, "no daemon at %s: %s (start one with `trak daemon`)", path,
                        strerror(errno));
}
