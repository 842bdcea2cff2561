/* wl_touch_probe: minimal Wayland client. Maps one xdg_toplevel (fullscreen
 * by default, or WxH with -s WxH), and prints every wl_touch, wl_keyboard and
 * wl_pointer event it gets, one per line, to stdout (line-buffered):
 *   ready / configure W H / seat caps touch=1 keyboard=1 pointer=0 (once the compositor took the
 *   get_touch and get_keyboard requests) / touch down id=0 x=.. y=.. / touch motion
 *   / touch up id= / touch frame / touch cancel / key key=164 state=1 / ...
 * Built by ShellTestSupport (HelperBuild): wayland-scanner on wayland-protocols' xdg-shell.xml,
 * then cc with wayland-client.                                                */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <unistd.h>
#include <sys/mman.h>
#include <wayland-client.h>
#include "xdg-shell-client-protocol.h"

static struct wl_compositor *compositor;
static struct wl_shm *shm;
static struct xdg_wm_base *wm_base;
static struct wl_seat *seat;
static struct wl_touch *touch;
static struct wl_keyboard *keyboard;
static struct wl_pointer *pointer;
static struct wl_surface *surface;
static struct xdg_surface *xdg_surface;
static struct xdg_toplevel *toplevel;
static int want_w = 0, want_h = 0, fullscreen = 1, running = 1, cur_w = 0, cur_h = 0;
static struct wl_buffer *buffer;

static void ev(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void ev(const char *fmt, ...) {
  va_list ap; va_start(ap, fmt); vprintf(fmt, ap); va_end(ap);
  putchar('\n'); fflush(stdout);
}

static struct wl_buffer *make_buffer(int w, int h) {
  int stride = w * 4, size = stride * h;
  int fd = memfd_create("probe", MFD_CLOEXEC);
  if (fd < 0 || ftruncate(fd, size) < 0) { perror("memfd"); exit(1); }
  uint32_t *px = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  for (int i = 0; i < w * h; i++) px[i] = 0xff3366aa;
  munmap(px, size);
  struct wl_shm_pool *pool = wl_shm_create_pool(shm, fd, size);
  struct wl_buffer *b = wl_shm_pool_create_buffer(pool, 0, w, h, stride, WL_SHM_FORMAT_XRGB8888);
  wl_shm_pool_destroy(pool); close(fd);
  return b;
}

/* touch */
static void t_down(void *d, struct wl_touch *t, uint32_t serial, uint32_t time,
                   struct wl_surface *s, int32_t id, wl_fixed_t x, wl_fixed_t y) {
  ev("touch down serial=%u time=%u id=%d x=%.2f y=%.2f", serial, time, id,
     wl_fixed_to_double(x), wl_fixed_to_double(y));
}
static void t_up(void *d, struct wl_touch *t, uint32_t serial, uint32_t time, int32_t id) {
  ev("touch up serial=%u time=%u id=%d", serial, time, id);
}
static void t_motion(void *d, struct wl_touch *t, uint32_t time, int32_t id, wl_fixed_t x, wl_fixed_t y) {
  ev("touch motion time=%u id=%d x=%.2f y=%.2f", time, id, wl_fixed_to_double(x), wl_fixed_to_double(y));
}
static void t_frame(void *d, struct wl_touch *t) { ev("touch frame"); }
static void t_cancel(void *d, struct wl_touch *t) { ev("touch cancel"); }
static void t_shape(void *d, struct wl_touch *t, int32_t id, wl_fixed_t a, wl_fixed_t b) {}
static void t_orient(void *d, struct wl_touch *t, int32_t id, wl_fixed_t o) {}
static const struct wl_touch_listener touch_l = { t_down, t_up, t_motion, t_frame, t_cancel, t_shape, t_orient };

/* keyboard */
static void k_keymap(void *d, struct wl_keyboard *k, uint32_t f, int32_t fd, uint32_t sz) { close(fd); }
static void k_enter(void *d, struct wl_keyboard *k, uint32_t serial, struct wl_surface *s, struct wl_array *keys) { ev("key enter"); }
static void k_leave(void *d, struct wl_keyboard *k, uint32_t serial, struct wl_surface *s) { ev("key leave"); }
static void k_key(void *d, struct wl_keyboard *k, uint32_t serial, uint32_t time, uint32_t key, uint32_t state) {
  ev("key key=%u state=%u time=%u", key, state, time);
}
static void k_mods(void *d, struct wl_keyboard *k, uint32_t serial, uint32_t a, uint32_t b, uint32_t c, uint32_t g) {}
static void k_repeat(void *d, struct wl_keyboard *k, int32_t rate, int32_t delay) {}
static const struct wl_keyboard_listener kb_l = { k_keymap, k_enter, k_leave, k_key, k_mods, k_repeat };

/* pointer */
static void p_enter(void *d, struct wl_pointer *p, uint32_t serial, struct wl_surface *s, wl_fixed_t x, wl_fixed_t y) {
  ev("pointer enter x=%.2f y=%.2f", wl_fixed_to_double(x), wl_fixed_to_double(y));
}
static void p_leave(void *d, struct wl_pointer *p, uint32_t serial, struct wl_surface *s) { ev("pointer leave"); }
static void p_motion(void *d, struct wl_pointer *p, uint32_t time, wl_fixed_t x, wl_fixed_t y) {
  ev("pointer motion x=%.2f y=%.2f", wl_fixed_to_double(x), wl_fixed_to_double(y));
}
static void p_button(void *d, struct wl_pointer *p, uint32_t serial, uint32_t time, uint32_t button, uint32_t state) {
  ev("pointer button %u state=%u", button, state);
}
static void p_axis(void *d, struct wl_pointer *p, uint32_t time, uint32_t axis, wl_fixed_t v) {}
static void p_frame(void *d, struct wl_pointer *p) {}
static void p_src(void *d, struct wl_pointer *p, uint32_t s) {}
static void p_stop(void *d, struct wl_pointer *p, uint32_t t, uint32_t a) {}
static void p_disc(void *d, struct wl_pointer *p, uint32_t a, int32_t v) {}
static const struct wl_pointer_listener ptr_l = { p_enter, p_leave, p_motion, p_button, p_axis, p_frame, p_src, p_stop, p_disc };

/* The capabilities line is printed once the compositor has processed the get_touch /
 * get_keyboard requests (a wl_display.sync after them): from then on, no event is lost. */
static struct wl_display *display;
static char caps_line[96];
static void caps_done(void *d, struct wl_callback *cb, uint32_t t) { wl_callback_destroy(cb); ev("%s", (char *)d); free(d); }
static const struct wl_callback_listener caps_l = { caps_done };
static void seat_caps(void *d, struct wl_seat *s, uint32_t caps) {
  int t = !!(caps & WL_SEAT_CAPABILITY_TOUCH), k = !!(caps & WL_SEAT_CAPABILITY_KEYBOARD),
      p = !!(caps & WL_SEAT_CAPABILITY_POINTER);
  snprintf(caps_line, sizeof caps_line, "seat caps touch=%d keyboard=%d pointer=%d", t, k, p);
  if (t && !touch) { touch = wl_seat_get_touch(s); wl_touch_add_listener(touch, &touch_l, NULL); }
  if (!t && touch) { wl_touch_release(touch); touch = NULL; }
  if (k && !keyboard) { keyboard = wl_seat_get_keyboard(s); wl_keyboard_add_listener(keyboard, &kb_l, NULL); }
  if (!k && keyboard) { wl_keyboard_release(keyboard); keyboard = NULL; }
  if (p && !pointer) { pointer = wl_seat_get_pointer(s); wl_pointer_add_listener(pointer, &ptr_l, NULL); }
  if (!p && pointer) { wl_pointer_release(pointer); pointer = NULL; }
  wl_callback_add_listener(wl_display_sync(display), &caps_l, strdup(caps_line));
}
static void seat_name(void *d, struct wl_seat *s, const char *n) {}
static const struct wl_seat_listener seat_l = { seat_caps, seat_name };

static void ping(void *d, struct xdg_wm_base *b, uint32_t serial) { xdg_wm_base_pong(b, serial); }
static const struct xdg_wm_base_listener wm_l = { ping };

static void xs_configure(void *d, struct xdg_surface *xs, uint32_t serial) {
  xdg_surface_ack_configure(xs, serial);
  int w = want_w ? want_w : 800, h = want_h ? want_h : 600;
  if (cur_w > 0 && cur_h > 0) { w = cur_w; h = cur_h; }
  static int bw = 0, bh = 0;
  if (!buffer || bw != w || bh != h) {
    if (buffer) wl_buffer_destroy(buffer);
    buffer = make_buffer(w, h); bw = w; bh = h;
  }
  wl_surface_attach(surface, buffer, 0, 0);
  wl_surface_damage(surface, 0, 0, w, h);
  wl_surface_commit(surface);
  ev("configure %d %d", w, h);
}
static const struct xdg_surface_listener xs_l = { xs_configure };
static void tl_configure(void *d, struct xdg_toplevel *t, int32_t w, int32_t h, struct wl_array *st) {
  cur_w = w; cur_h = h;
}
static void tl_close(void *d, struct xdg_toplevel *t) { running = 0; }
static const struct xdg_toplevel_listener tl_l = { tl_configure, tl_close };

static void reg_global(void *d, struct wl_registry *r, uint32_t name, const char *iface, uint32_t ver) {
  if (!strcmp(iface, wl_compositor_interface.name)) compositor = wl_registry_bind(r, name, &wl_compositor_interface, 4);
  else if (!strcmp(iface, wl_shm_interface.name)) shm = wl_registry_bind(r, name, &wl_shm_interface, 1);
  else if (!strcmp(iface, xdg_wm_base_interface.name)) {
    wm_base = wl_registry_bind(r, name, &xdg_wm_base_interface, 1);
    xdg_wm_base_add_listener(wm_base, &wm_l, NULL);
  } else if (!strcmp(iface, wl_seat_interface.name) && !seat) {
    seat = wl_registry_bind(r, name, &wl_seat_interface, ver < 7 ? ver : 7);
    wl_seat_add_listener(seat, &seat_l, NULL);
  }
}
static void reg_remove(void *d, struct wl_registry *r, uint32_t name) {}
static const struct wl_registry_listener reg_l = { reg_global, reg_remove };

int main(int argc, char **argv) {
  const char *title = "wl_touch_probe";
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-s") && i + 1 < argc) { sscanf(argv[++i], "%dx%d", &want_w, &want_h); fullscreen = 0; }
    else if (!strcmp(argv[i], "-t") && i + 1 < argc) title = argv[++i];
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  struct wl_display *dpy = display = wl_display_connect(NULL);
  if (!dpy) { fprintf(stderr, "cannot connect to wayland display\n"); return 1; }
  struct wl_registry *reg = wl_display_get_registry(dpy);
  wl_registry_add_listener(reg, &reg_l, NULL);
  wl_display_roundtrip(dpy);
  if (!compositor || !shm || !wm_base) { fprintf(stderr, "missing globals\n"); return 1; }
  surface = wl_compositor_create_surface(compositor);
  xdg_surface = xdg_wm_base_get_xdg_surface(wm_base, surface);
  xdg_surface_add_listener(xdg_surface, &xs_l, NULL);
  toplevel = xdg_surface_get_toplevel(xdg_surface);
  xdg_toplevel_add_listener(toplevel, &tl_l, NULL);
  xdg_toplevel_set_title(toplevel, title);
  xdg_toplevel_set_app_id(toplevel, title);
  if (fullscreen) xdg_toplevel_set_fullscreen(toplevel, NULL);
  wl_surface_commit(surface);
  ev("ready");
  while (running && wl_display_dispatch(dpy) != -1) {}
  return 0;
}
