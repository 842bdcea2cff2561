// See CWaylandKeys.h. The protocol is unstable and Debian packages no XML of it: its two
// interfaces are declared here by hand (requests only; it has no events), as wlroots'
// protocol/virtual-keyboard-unstable-v1.xml (MIT) defines them. libwayland-client's functions and
// interfaces are looked up at run time, so its inline helpers (wl_registry_bind…) are written out.
#define _GNU_SOURCE
#include "CWaylandKeys.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "wayland.h"

// zwp_virtual_keyboard_v1 and its manager. The manager's request names the seat's interface,
// which is libwayland's: the table is filled in once it is loaded.
static const struct wl_interface *vk_no_types[] = {NULL, NULL, NULL, NULL};
static const struct wl_interface vk_keyboard_interface;
static const struct wl_interface *vk_create_types[] = {NULL, &vk_keyboard_interface};
static const struct wl_message vk_keyboard_requests[] = {
    {"keymap", "uhu", vk_no_types},
    {"key", "uuu", vk_no_types},
    {"modifiers", "uuuu", vk_no_types},
    {"destroy", "", vk_no_types},
};
static const struct wl_interface vk_keyboard_interface = {
    "zwp_virtual_keyboard_v1", 1, 4, vk_keyboard_requests, 0, NULL,
};
static const struct wl_message vk_manager_requests[] = {
    {"create_virtual_keyboard", "on", vk_create_types},
};
static const struct wl_interface vk_manager_interface = {
    "zwp_virtual_keyboard_manager_v1", 1, 1, vk_manager_requests, 0, NULL,
};
enum { VK_KEYMAP, VK_KEY, VK_MODIFIERS, VK_DESTROY };

struct vk_globals {
  struct wl_proxy *registry;
  struct wl_proxy *seat;
  struct wl_proxy *manager;
};

static struct wl_proxy *vk_bind(struct wl_proxy *registry, uint32_t name, const struct wl_interface *interface) {
  return rsp_wl.marshal(registry, WL_REGISTRY_BIND, interface, 1, 0, name, interface->name, 1u, NULL);
}

static void vk_global(void *data, struct wl_registry *registry, uint32_t name, const char *interface,
                      uint32_t version) {
  struct vk_globals *globals = data;
  if (strcmp(interface, "wl_seat") == 0 && !globals->seat)
    globals->seat = vk_bind((struct wl_proxy *)registry, name, rsp_wl.seat_interface);
  else if (strcmp(interface, vk_manager_interface.name) == 0 && !globals->manager)
    globals->manager = vk_bind((struct wl_proxy *)registry, name, &vk_manager_interface);
}

static void vk_global_remove(void *data, struct wl_registry *registry, uint32_t name) {}

static const struct wl_registry_listener vk_registry_listener = {vk_global, vk_global_remove};

static void vk_sync_done(void *data, struct wl_callback *callback, uint32_t time) { *(int *)data = 1; }

static const struct wl_callback_listener vk_sync_listener = {vk_sync_done};

static int64_t vk_now_ms(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

// A round trip that gives up at `deadline` (CLOCK_MONOTONIC milliseconds): 0, RSP_VK_TIMEOUT or
// RSP_VK_BROKEN.
static int vk_roundtrip(struct wl_display *display, int64_t deadline) {
  int done = 0;
  struct wl_proxy *callback =
      rsp_wl.marshal((struct wl_proxy *)display, WL_DISPLAY_SYNC, rsp_wl.callback_interface, 1, 0, NULL);
  if (!callback) return RSP_VK_BROKEN;
  rsp_wl.add_listener(callback, (void (**)(void))&vk_sync_listener, &done);
  int result = 0;
  while (!done) {
    if (rsp_wl.prepare_read(display) != 0) {
      if (rsp_wl.dispatch_pending(display) < 0) {
        result = RSP_VK_BROKEN;
        break;
      }
      continue;
    }
    if (rsp_wl.flush(display) < 0 && errno != EAGAIN) {
      rsp_wl.cancel_read(display);
      result = RSP_VK_BROKEN;
      break;
    }
    int64_t left = deadline - vk_now_ms();
    struct pollfd readable = {rsp_wl.get_fd(display), POLLIN, 0};
    int ready = left > 0 ? poll(&readable, 1, (int)left) : 0;
    if (ready <= 0) {
      rsp_wl.cancel_read(display);
      if (ready < 0 && errno == EINTR) continue;
      result = ready == 0 ? RSP_VK_TIMEOUT : RSP_VK_BROKEN;
      break;
    }
    if (rsp_wl.read_events(display) < 0 || rsp_wl.dispatch_pending(display) < 0) {
      result = RSP_VK_BROKEN;
      break;
    }
  }
  rsp_wl.destroy(callback);
  return result;
}

// Connects and finds the seat and the manager: the display (NULL when there is none), and in
// `result` 0 or why they cannot be used.
static struct wl_display *vk_connect(const char *display_name, struct vk_globals *globals, int64_t deadline,
                                     int *result) {
  if (!rsp_wayland_display_exists(display_name)) {
    *result = RSP_VK_NO_DISPLAY;
    return NULL;
  }
  if (!rsp_wayland_load()) {
    *result = RSP_VK_NO_LIBRARY;
    return NULL;
  }
  vk_create_types[0] = rsp_wl.seat_interface;
  struct wl_display *display = rsp_wl.connect(display_name);
  if (!display) {
    *result = RSP_VK_NO_DISPLAY;
    return NULL;
  }
  globals->registry =
      rsp_wl.marshal((struct wl_proxy *)display, WL_DISPLAY_GET_REGISTRY, rsp_wl.registry_interface, 1, 0, NULL);
  rsp_wl.add_listener(globals->registry, (void (**)(void))&vk_registry_listener, globals);
  *result = vk_roundtrip(display, deadline);
  if (*result == 0 && (!globals->seat || !globals->manager)) *result = RSP_VK_NOT_OFFERED;
  return display;
}

static void vk_disconnect(struct wl_display *display, struct vk_globals *globals) {
  if (globals->manager) rsp_wl.destroy(globals->manager);
  if (globals->seat) rsp_wl.destroy(globals->seat);
  if (globals->registry) rsp_wl.destroy(globals->registry);
  rsp_wl.disconnect(display);
}

int rsp_virtual_keyboard_probe(const char *display_name, int timeout_ms) {
  struct vk_globals globals = {0};
  int result;
  struct wl_display *display = vk_connect(display_name, &globals, vk_now_ms() + timeout_ms, &result);
  if (display) vk_disconnect(display, &globals);
  return result;
}

int rsp_virtual_keyboard_send(const char *display_name, const char *keymap, uint32_t modifier_mask,
                              const uint32_t *modifier_keys, size_t modifier_count, uint32_t key, int timeout_ms) {
  int64_t deadline = vk_now_ms() + timeout_ms;
  struct vk_globals globals = {0};
  int result;
  struct wl_display *display = vk_connect(display_name, &globals, deadline, &result);
  if (!display) return result;
  size_t size = strlen(keymap) + 1;
  int fd = result == 0 ? memfd_create("responderd-keymap", MFD_CLOEXEC) : -1;
  if (result == 0 && (fd < 0 || write(fd, keymap, size) != (ssize_t)size)) result = RSP_VK_BROKEN;
  if (result != 0) {
    if (fd >= 0) close(fd);
    vk_disconnect(display, &globals);
    return result;
  }
  struct wl_proxy *keyboard = rsp_wl.marshal(globals.manager, 0, &vk_keyboard_interface, 1, 0, globals.seat, NULL);
  rsp_wl.marshal(keyboard, VK_KEYMAP, NULL, 1, 0, WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1, fd, (uint32_t)size);
  close(fd);
  // As a keyboard types the chord: the modifiers down (and the state saying so), the key down and
  // up, the modifiers up in the reverse order.
  uint32_t time = (uint32_t)vk_now_ms();
  for (size_t i = 0; i < modifier_count; i++)
    rsp_wl.marshal(keyboard, VK_KEY, NULL, 1, 0, time, modifier_keys[i], (uint32_t)WL_KEYBOARD_KEY_STATE_PRESSED);
  rsp_wl.marshal(keyboard, VK_MODIFIERS, NULL, 1, 0, modifier_mask, 0u, 0u, 0u);
  rsp_wl.marshal(keyboard, VK_KEY, NULL, 1, 0, time, key, (uint32_t)WL_KEYBOARD_KEY_STATE_PRESSED);
  rsp_wl.marshal(keyboard, VK_KEY, NULL, 1, 0, time + 1, key, (uint32_t)WL_KEYBOARD_KEY_STATE_RELEASED);
  for (size_t i = modifier_count; i > 0; i--)
    rsp_wl.marshal(keyboard, VK_KEY, NULL, 1, 0, time + 1, modifier_keys[i - 1], (uint32_t)WL_KEYBOARD_KEY_STATE_RELEASED);
  rsp_wl.marshal(keyboard, VK_MODIFIERS, NULL, 1, 0, 0u, 0u, 0u, 0u);
  // The compositor has taken every key once it answers; then the keyboard goes away.
  result = vk_roundtrip(display, deadline);
  rsp_wl.marshal(keyboard, VK_DESTROY, NULL, 1, WL_MARSHAL_FLAG_DESTROY);
  if (result == 0) result = vk_roundtrip(display, deadline);
  vk_disconnect(display, &globals);
  return result;
}
