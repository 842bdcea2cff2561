/* kwin_fake_input: inject input into KWin (5.27) through org_kde_kwin_fake_input.
 * Reads commands from stdin (or the file argv[1]), one per line; after each, a roundtrip with the compositor (it has
 * processed the request) and one answer line on stdout: "ok", or "error WHAT" for a bad line.
 * It says "ready" once the global is bound and authenticated.  Commands:
 *   key CODE 1|0        evdev keycode press/release (needs interface v4)
 *   down ID X Y         touch down (global compositor coordinates)
 *   motion ID X Y       touch motion
 *   up ID               touch up
 *   frame               touch frame
 *   cancel              touch cancel
 *   move X Y            absolute pointer motion
 *   button CODE 1|0     pointer button (BTN_LEFT=272)
 *   sync                nothing but the round trip: "ok" once KWin has taken what came before
 * KWin must let the client bind the global: run kwin with
 * KWIN_WAYLAND_NO_PERMISSION_CHECKS=1 (or install a .desktop file for this exe with
 * X-KDE-Wayland-Interfaces=org_kde_kwin_fake_input).  Built by ShellTestSupport (HelperBuild):
 * wayland-scanner on plasma-wayland-protocols' fake-input.xml, then cc with wayland-client. */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wayland-client.h>
#include "fake-input-client-protocol.h"

static struct org_kde_kwin_fake_input *fi;
static uint32_t fi_ver;

static void reg_global(void *d, struct wl_registry *r, uint32_t name, const char *iface, uint32_t ver) {
  if (!strcmp(iface, org_kde_kwin_fake_input_interface.name)) {
    fi_ver = ver < 4 ? ver : 4;
    fi = wl_registry_bind(r, name, &org_kde_kwin_fake_input_interface, fi_ver);
  }
}
static void reg_remove(void *d, struct wl_registry *r, uint32_t name) {}
static const struct wl_registry_listener reg_l = { reg_global, reg_remove };

int main(int argc, char **argv) {
  /* argv[1]: read the commands from this file (a FIFO) instead of stdin */
  if (argc > 1 && !freopen(argv[1], "r", stdin)) { perror(argv[1]); return 1; }
  struct wl_display *dpy = wl_display_connect(NULL);
  if (!dpy) { fprintf(stderr, "no wayland display\n"); return 1; }
  struct wl_registry *reg = wl_display_get_registry(dpy);
  wl_registry_add_listener(reg, &reg_l, NULL);
  wl_display_roundtrip(dpy);
  /* KWin may announce the global a moment after its socket and bus name appear: wait for it
   * (the display's descriptor, in poll), 10 s at most. */
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  while (!fi) {
    clock_gettime(CLOCK_MONOTONIC, &now);
    long left = 10000 - ((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000);
    if (left <= 0 || wl_display_flush(dpy) < 0) break;
    struct pollfd p = { wl_display_get_fd(dpy), POLLIN, 0 };
    if (poll(&p, 1, (int)left) <= 0 || wl_display_dispatch(dpy) < 0) break;
  }
  if (!fi) { fprintf(stderr, "org_kde_kwin_fake_input not offered within 10 s (permission check?)\n"); return 2; }
  org_kde_kwin_fake_input_authenticate(fi, "kwin_fake_input", "automated tests");
  wl_display_roundtrip(dpy);
  printf("ready fake_input v%u\n", fi_ver); fflush(stdout);
  char line[256];
  while (fgets(line, sizeof line, stdin)) {
    char cmd[32]; double x = 0, y = 0; unsigned a = 0, b = 0;
    if (sscanf(line, "%31s", cmd) != 1) continue;
    if (!strcmp(cmd, "key") && sscanf(line, "%*s %u %u", &a, &b) == 2) org_kde_kwin_fake_input_keyboard_key(fi, a, b);
    else if (!strcmp(cmd, "down") && sscanf(line, "%*s %u %lf %lf", &a, &x, &y) == 3)
      org_kde_kwin_fake_input_touch_down(fi, a, wl_fixed_from_double(x), wl_fixed_from_double(y));
    else if (!strcmp(cmd, "motion") && sscanf(line, "%*s %u %lf %lf", &a, &x, &y) == 3)
      org_kde_kwin_fake_input_touch_motion(fi, a, wl_fixed_from_double(x), wl_fixed_from_double(y));
    else if (!strcmp(cmd, "up") && sscanf(line, "%*s %u", &a) == 1) org_kde_kwin_fake_input_touch_up(fi, a);
    else if (!strcmp(cmd, "frame")) org_kde_kwin_fake_input_touch_frame(fi);
    else if (!strcmp(cmd, "cancel")) org_kde_kwin_fake_input_touch_cancel(fi);
    else if (!strcmp(cmd, "move") && sscanf(line, "%*s %lf %lf", &x, &y) == 2)
      org_kde_kwin_fake_input_pointer_motion_absolute(fi, wl_fixed_from_double(x), wl_fixed_from_double(y));
    else if (!strcmp(cmd, "button") && sscanf(line, "%*s %u %u", &a, &b) == 2) org_kde_kwin_fake_input_button(fi, a, b);
    else if (!strcmp(cmd, "sync")) { /* nothing: the round trip below, then "ok" */ }
    else { printf("error bad command: %s", line); fflush(stdout); continue; }
    if (wl_display_roundtrip(dpy) < 0) { printf("error connection lost\n"); fflush(stdout); return 3; }
    printf("ok\n"); fflush(stdout);
  }
  return 0;
}
