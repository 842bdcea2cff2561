// libwayland-client's functions and interfaces, looked up in the library loaded on first use
// (dlopen of libwayland-client.so.0): one table for the virtual keyboard and KWin's fake input.
#ifndef RESPONDERD_CWAYLANDKEYS_WAYLAND_H
#define RESPONDERD_CWAYLANDKEYS_WAYLAND_H

#include <wayland-client-core.h>
#include <wayland-client-protocol.h>

extern struct rsp_wayland_functions {
  __typeof__(&wl_display_connect) connect;
  __typeof__(&wl_display_disconnect) disconnect;
  __typeof__(&wl_display_get_fd) get_fd;
  __typeof__(&wl_display_get_error) get_error;
  __typeof__(&wl_display_prepare_read) prepare_read;
  __typeof__(&wl_display_cancel_read) cancel_read;
  __typeof__(&wl_display_read_events) read_events;
  __typeof__(&wl_display_dispatch_pending) dispatch_pending;
  __typeof__(&wl_display_flush) flush;
  __typeof__(&wl_proxy_marshal_flags) marshal;
  __typeof__(&wl_proxy_add_listener) add_listener;
  __typeof__(&wl_proxy_get_version) get_version;
  __typeof__(&wl_proxy_destroy) destroy;
  const struct wl_interface *registry_interface;
  const struct wl_interface *callback_interface;
  const struct wl_interface *seat_interface;
} rsp_wl;

/// Loads libwayland-client and fills `wl` (once): 1 when done, 0 when it cannot
/// (`rsp_wayland_load_error` says why).
int rsp_wayland_load(void);

/// Whether there is a compositor's socket where wl_display_connect looks for `display_name`
/// (WAYLAND_SOCKET; else the name, WAYLAND_DISPLAY or "wayland-0", in XDG_RUNTIME_DIR unless a
/// path): without one the library is not loaded only to fail to connect.
int rsp_wayland_display_exists(const char *display_name);

#endif
