/* The release responderd links libdbus in from libdbus-1.a (see Package.swift), so that it does
   not load libdbus-1.so.3 and, with it, libsystemd and six more libraries at every start. The
   archive refers to two functions of libsystemd, only from the code of a D-Bus server listening
   on sockets systemd passed it (a "systemd:" address), which a bus client never runs. They are
   answered here as libsystemd answers a process that systemd passed no socket: none. */
#include "CDBusStatic.h"

int sd_listen_fds(int unset_environment) {
  (void)unset_environment;
  return 0;
}

int sd_is_socket(int fd, int family, int type, int listening) {
  (void)fd;
  (void)family;
  (void)type;
  (void)listening;
  return 0;
}
