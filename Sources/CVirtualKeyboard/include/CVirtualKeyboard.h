#ifndef RESPONDERD_CVIRTUALKEYBOARD_H
#define RESPONDERD_CVIRTUALKEYBOARD_H

// The undo and redo chords through zwp_virtual_keyboard_v1, the protocol of wlroots compositors
// (phoc under phosh, sway, Hyprland) that on-screen keyboards such as squeekboard type with.
// libwayland-client is loaded on first use (dlopen of libwayland-client.so.0), not linked: a daemon
// on GNOME or KDE, or with no accelerometer, never maps it. Each call is one short connection, and
// the keyboard exists only while a chord is sent; every wait for the compositor is bounded.

#include <stddef.h>
#include <stdint.h>

/// What the two calls return besides 0.
enum rsp_virtual_keyboard_result {
  /// libwayland-client cannot be loaded (`rsp_virtual_keyboard_load_error` says why).
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
const char *rsp_virtual_keyboard_load_error(void);

/// Whether the compositor at `display_name` (NULL: as every client finds it) offers a virtual
/// keyboard: 0 when it does, else an `rsp_virtual_keyboard_result`. Connects and disconnects.
int rsp_virtual_keyboard_probe(const char *display_name, int timeout_ms);

/// Types one chord on a virtual keyboard made for it, with `keymap` (XKB text): `modifier_keys`
/// (evdev codes) down, `modifier_mask` as the modifier state, `key` down and up, then all up. 0
/// once the compositor took the keys, else an `rsp_virtual_keyboard_result`.
int rsp_virtual_keyboard_send(const char *display_name, const char *keymap, uint32_t modifier_mask,
                              const uint32_t *modifier_keys, size_t modifier_count, uint32_t key, int timeout_ms);

#endif
