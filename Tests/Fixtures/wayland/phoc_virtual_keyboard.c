/* phoc_virtual_keyboard: keys into phoc (or any wlroots compositor) through
 * zwp_virtual_keyboard_v1, the protocol squeekboard, phosh's on-screen keyboard, types with.
 *   usage: phoc_virtual_keyboard FIFO
 * Prints "ready" once its keyboard exists (the seat then offers a keyboard), then reads
 * commands from FIFO, one a line, and answers each with "ok" after a round trip with the
 * compositor (or "err ..."):
 *   key CODE 1|0     an evdev key code (linux/input-event-codes.h) pressed or released
 *   sync             a round trip only
 * The keymap is xkbcommon's default (us). The protocol's two interfaces are declared here by
 * hand (Debian ships no XML of this unstable protocol): requests only, no events. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <wayland-client.h>
#include <xkbcommon/xkbcommon.h>

extern const struct wl_interface zwp_virtual_keyboard_v1_interface;
static const struct wl_interface *no_types[] = { NULL, NULL, NULL, NULL };
static const struct wl_interface *create_types[] = { &wl_seat_interface, &zwp_virtual_keyboard_v1_interface };
static const struct wl_message keyboard_requests[] = {
  { "keymap", "uhu", no_types },
  { "key", "uuu", no_types },
  { "modifiers", "uuuu", no_types },
  { "destroy", "", no_types },
};
const struct wl_interface zwp_virtual_keyboard_v1_interface = {
  "zwp_virtual_keyboard_v1", 1, 4, keyboard_requests, 0, NULL,
};
static const struct wl_message manager_requests[] = {
  { "create_virtual_keyboard", "on", create_types },
};
static const struct wl_interface zwp_virtual_keyboard_manager_v1_interface = {
  "zwp_virtual_keyboard_manager_v1", 1, 1, manager_requests, 0, NULL,
};

static struct wl_seat *seat;
static struct wl_proxy *manager;

static void global(void *data, struct wl_registry *registry, uint32_t name, const char *interface,
                   uint32_t version) {
  if (!strcmp(interface, "wl_seat") && !seat)
    seat = wl_registry_bind(registry, name, &wl_seat_interface, 1);
  else if (!strcmp(interface, "zwp_virtual_keyboard_manager_v1"))
    manager = wl_registry_bind(registry, name, &zwp_virtual_keyboard_manager_v1_interface, 1);
}
static void global_remove(void *data, struct wl_registry *registry, uint32_t name) {}
static const struct wl_registry_listener registry_listener = { global, global_remove };

static uint32_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint32_t)(ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

int main(int argc, char **argv) {
  if (argc != 2) { fprintf(stderr, "usage: phoc_virtual_keyboard FIFO\n"); return 2; }
  struct wl_display *display = wl_display_connect(NULL);
  if (!display) { fprintf(stderr, "cannot connect to the Wayland display\n"); return 1; }
  wl_registry_add_listener(wl_display_get_registry(display), &registry_listener, NULL);
  wl_display_roundtrip(display);
  if (!seat || !manager) { fprintf(stderr, "no wl_seat or no zwp_virtual_keyboard_manager_v1\n"); return 1; }

  struct xkb_context *context = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
  struct xkb_rule_names names = { .layout = "us" };
  struct xkb_keymap *keymap = context ? xkb_keymap_new_from_names(context, &names, 0) : NULL;
  if (!keymap) { fprintf(stderr, "xkbcommon: no keymap (xkb-data)\n"); return 1; }
  char *text = xkb_keymap_get_as_string(keymap, XKB_KEYMAP_FORMAT_TEXT_V1);
  size_t size = strlen(text) + 1;
  int fd = memfd_create("keymap", MFD_CLOEXEC);
  if (fd < 0 || write(fd, text, size) != (ssize_t)size) { perror("keymap"); return 1; }

  struct wl_proxy *keyboard = wl_proxy_marshal_flags(
    manager, 0, &zwp_virtual_keyboard_v1_interface, 1, 0, seat, NULL);
  wl_proxy_marshal_flags(keyboard, 0, NULL, 1, 0, WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1, fd, (uint32_t)size);
  if (wl_display_roundtrip(display) < 0) { fprintf(stderr, "the compositor refused the keyboard\n"); return 1; }
  printf("ready\n");
  fflush(stdout);

  FILE *in = fopen(argv[1], "r+");
  if (!in) { perror(argv[1]); return 1; }
  char line[256];
  while (fgets(line, sizeof line, in)) {
    unsigned code, state;
    if (sscanf(line, "key %u %u", &code, &state) == 2) {
      wl_proxy_marshal_flags(keyboard, 1, NULL, 1, 0, now_ms(), code, state ? 1u : 0u);
    } else if (strncmp(line, "sync", 4) != 0) {
      printf("err unknown command\n");
      fflush(stdout);
      continue;
    }
    if (wl_display_roundtrip(display) < 0) { printf("err the compositor closed the connection\n"); return 1; }
    printf("ok\n");
    fflush(stdout);
  }
  return 0;
}
