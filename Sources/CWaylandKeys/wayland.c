#include "wayland.h"

#include <CLibraryLoader.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "CWaylandKeys.h"

static rsp_library libwayland = {.soname = "libwayland-client.so.0"};

struct rsp_wayland_functions rsp_wl;

const char *rsp_wayland_load_error(void) { return libwayland.error; }

int rsp_wayland_load(void) {
  if (rsp_wl.destroy) return 1;
#define RESOLVE(field, name) \
  if (!(*(void **)&rsp_wl.field = rsp_library_resolve(&libwayland, name))) return 0;
  RESOLVE(connect, "wl_display_connect")
  RESOLVE(disconnect, "wl_display_disconnect")
  RESOLVE(get_fd, "wl_display_get_fd")
  RESOLVE(get_error, "wl_display_get_error")
  RESOLVE(prepare_read, "wl_display_prepare_read")
  RESOLVE(cancel_read, "wl_display_cancel_read")
  RESOLVE(read_events, "wl_display_read_events")
  RESOLVE(dispatch_pending, "wl_display_dispatch_pending")
  RESOLVE(flush, "wl_display_flush")
  RESOLVE(marshal, "wl_proxy_marshal_flags")
  RESOLVE(add_listener, "wl_proxy_add_listener")
  RESOLVE(get_version, "wl_proxy_get_version")
  RESOLVE(registry_interface, "wl_registry_interface")
  RESOLVE(callback_interface, "wl_callback_interface")
  RESOLVE(seat_interface, "wl_seat_interface")
  // Last: the table is complete once `destroy` is set.
  RESOLVE(destroy, "wl_proxy_destroy")
#undef RESOLVE
  return 1;
}

int rsp_wayland_display_exists(const char *display_name) {
  if (getenv("WAYLAND_SOCKET")) return 1;
  const char *name = display_name ? display_name : getenv("WAYLAND_DISPLAY");
  if (!name || !*name) name = "wayland-0";
  if (name[0] == '/') return access(name, F_OK) == 0;
  const char *runtime = getenv("XDG_RUNTIME_DIR");
  char path[PATH_MAX];
  if (!runtime || snprintf(path, sizeof path, "%s/%s", runtime, name) >= (int)sizeof path) return 0;
  return access(path, F_OK) == 0;
}
