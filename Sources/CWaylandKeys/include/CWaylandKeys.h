#ifndef RESPONDERD_CWAYLANDKEYS_H
#define RESPONDERD_CWAYLANDKEYS_H

// The undo and redo chords through a Wayland compositor's keyboard API: wlroots'
// zwp_virtual_keyboard_v1 (phoc under phosh, sway, Hyprland; the protocol on-screen keyboards such
// as squeekboard type with) and KWin's org_kde_kwin_fake_input. libwayland-client is loaded on
// first use (dlopen of libwayland-client.so.0), not linked, and only when a compositor's socket is
// there: a daemon outside a Wayland session never maps it.

#include <stddef.h>
#include <stdint.h>

// The virtual keyboard: each call is one short connection, and the keyboard exists only while a
// chord is sent; every wait for the compositor is bounded.

/// What the two virtual keyboard calls return besides 0.
enum rsp_virtual_keyboard_result {
  /// libwayland-client cannot be loaded (`rsp_wayland_load_error` says why).
  RSP_VK_NO_LIBRARY = -1,
  /// No Wayland display to connect to (`display_name`, else WAYLAND_DISPLAY, else wayland-0).
  RSP_VK_NO_DISPLAY = -2,
  /// The compositor offers no zwp_virtual_keyboard_manager_v1 (or no seat).
  RSP_VK_NOT_OFFERED = -3,
  /// It did not answer in time.
  RSP_VK_TIMEOUT = -4,
  /// It closed the connection or raised a protocol error.
  RSP_VK_BROKEN = -5,
};

/// Why libwayland-client could not be loaded (dlerror), or NULL.
const char *rsp_wayland_load_error(void);

/// Whether the compositor at `display_name` (NULL: as every client finds it) offers a virtual
/// keyboard: 0 when it does, else an `rsp_virtual_keyboard_result`. Connects and disconnects.
int rsp_virtual_keyboard_probe(const char *display_name, int timeout_ms);

/// Types one chord on a virtual keyboard made for it, with `keymap` (XKB text): `modifier_keys`
/// (evdev codes) down, `modifier_mask` as the modifier state, `key` down and up, then all up. 0
/// once the compositor took the keys, else an `rsp_virtual_keyboard_result`.
int rsp_virtual_keyboard_send(const char *display_name, const char *keymap, uint32_t modifier_mask,
                              const uint32_t *modifier_keys, size_t modifier_count, uint32_t key, int timeout_ms);

// KWin's fake input, on a connection the caller drives from its own event loop: the
// libwayland-client calls it needs, each as libwayland's function of that name does.

struct wl_display;
struct wl_registry;
struct wl_callback;
struct org_kde_kwin_fake_input;

/// Where a connection's events go: each global the registry lists, and the end of a round trip
/// (`rsp_wayland_sync`). Must outlive the objects listened to.
struct rsp_wayland_sink {
  void (*global)(void *context, uint32_t name, const char *interface, uint32_t version);
  void (*done)(void *context, struct wl_callback *callback);
  void *context;
};

/// Connects to the compositor `display_name` names (NULL: WAYLAND_DISPLAY, else wayland-0); NULL
/// with errno set when there is none (ENOENT: no socket, the library not loaded), or with errno
/// ENOSYS when libwayland-client cannot be loaded.
struct wl_display *rsp_wayland_connect(const char *display_name);
void rsp_wayland_disconnect(struct wl_display *display);
int rsp_wayland_get_fd(struct wl_display *display);
/// The errno the connection failed with, 0 while it has not.
int rsp_wayland_get_error(struct wl_display *display);
/// Reads what the connection has (it is readable) and calls the sinks: -1 once it failed.
int rsp_wayland_read(struct wl_display *display);
int rsp_wayland_flush(struct wl_display *display);
/// The registry, its globals to `sink`.
struct wl_registry *rsp_wayland_get_registry(struct wl_display *display, const struct rsp_wayland_sink *sink);
/// A round trip: `sink->done` with the callback returned when the compositor has handled every
/// request sent before it.
struct wl_callback *rsp_wayland_sync(struct wl_display *display, const struct rsp_wayland_sink *sink);
void rsp_wayland_registry_destroy(struct wl_registry *registry);
void rsp_wayland_callback_destroy(struct wl_callback *callback);

/// Binds KWin's fake input, global `name` of the registry, at `version`.
struct org_kde_kwin_fake_input *rsp_kwin_fake_input_bind(struct wl_registry *registry, uint32_t name,
                                                         uint32_t version);
/// Tells KWin who asks for fake input and why.
void rsp_kwin_fake_input_authenticate(struct org_kde_kwin_fake_input *input, const char *application,
                                      const char *reason);
/// Presses (`state` 1) or releases (0) the key with evdev code `key` (version 4).
void rsp_kwin_fake_input_key(struct org_kde_kwin_fake_input *input, uint32_t key, uint32_t state);
void rsp_kwin_fake_input_destroy(struct org_kde_kwin_fake_input *input);

#endif
