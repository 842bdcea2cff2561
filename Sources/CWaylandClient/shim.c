// Listeners that hand every event to one callback as a `struct wt_event` (see CWaylandClient.h).
#define _GNU_SOURCE
#include "CWaylandClient.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void emit(void *data, struct wt_event *event) {
  const struct wt_sink *sink = data;
  sink->handler(sink->context, event);
}

#define EVENT(k, obj) struct wt_event e; memset(&e, 0, sizeof e); e.kind = (k); e.object = (obj)

static void registry_global(void *data, struct wl_registry *registry, uint32_t name, const char *interface,
                            uint32_t version) {
  EVENT(WT_GLOBAL, registry);
  e.name = name;
  e.interface = interface;
  e.version = version;
  emit(data, &e);
}

static void registry_global_remove(void *data, struct wl_registry *registry, uint32_t name) {
  EVENT(WT_GLOBAL_REMOVE, registry);
  e.name = name;
  emit(data, &e);
}

static const struct wl_registry_listener registry_listener = {registry_global, registry_global_remove};

void wt_listen_registry(struct wl_registry *registry, const struct wt_sink *sink) {
  wl_registry_add_listener(registry, &registry_listener, (void *)sink);
}

static void seat_capabilities(void *data, struct wl_seat *seat, uint32_t capabilities) {
  EVENT(WT_SEAT_CAPABILITIES, seat);
  e.value = (int32_t)capabilities;
  emit(data, &e);
}

static void seat_name(void *data, struct wl_seat *seat, const char *name) {
  EVENT(WT_SEAT_NAME, seat);
  e.interface = name;
  emit(data, &e);
}

static const struct wl_seat_listener seat_listener = {seat_capabilities, seat_name};

void wt_listen_seat(struct wl_seat *seat, const struct wt_sink *sink) {
  wl_seat_add_listener(seat, &seat_listener, (void *)sink);
}

static void touch_down(void *data, struct wl_touch *touch, uint32_t serial, uint32_t time,
                       struct wl_surface *surface, int32_t id, wl_fixed_t x, wl_fixed_t y) {
  EVENT(WT_TOUCH_DOWN, touch);
  e.other = surface;
  e.serial = serial;
  e.time = time;
  e.id = id;
  e.x = wl_fixed_to_double(x);
  e.y = wl_fixed_to_double(y);
  emit(data, &e);
}

static void touch_up(void *data, struct wl_touch *touch, uint32_t serial, uint32_t time, int32_t id) {
  EVENT(WT_TOUCH_UP, touch);
  e.serial = serial;
  e.time = time;
  e.id = id;
  emit(data, &e);
}

static void touch_motion(void *data, struct wl_touch *touch, uint32_t time, int32_t id, wl_fixed_t x,
                         wl_fixed_t y) {
  EVENT(WT_TOUCH_MOTION, touch);
  e.time = time;
  e.id = id;
  e.x = wl_fixed_to_double(x);
  e.y = wl_fixed_to_double(y);
  emit(data, &e);
}

static void touch_frame(void *data, struct wl_touch *touch) {
  EVENT(WT_TOUCH_FRAME, touch);
  emit(data, &e);
}

static void touch_cancel(void *data, struct wl_touch *touch) {
  EVENT(WT_TOUCH_CANCEL, touch);
  emit(data, &e);
}

static void touch_shape(void *data, struct wl_touch *touch, int32_t id, wl_fixed_t major, wl_fixed_t minor) {
  EVENT(WT_TOUCH_SHAPE, touch);
  e.id = id;
  e.major = wl_fixed_to_double(major);
  e.minor = wl_fixed_to_double(minor);
  emit(data, &e);
}

static void touch_orientation(void *data, struct wl_touch *touch, int32_t id, wl_fixed_t orientation) {
  EVENT(WT_TOUCH_ORIENTATION, touch);
  e.id = id;
  e.orientation = wl_fixed_to_double(orientation);
  emit(data, &e);
}

static const struct wl_touch_listener touch_listener = {
    touch_down, touch_up, touch_motion, touch_frame, touch_cancel, touch_shape, touch_orientation};

void wt_listen_touch(struct wl_touch *touch, const struct wt_sink *sink) {
  wl_touch_add_listener(touch, &touch_listener, (void *)sink);
}

static void output_geometry(void *data, struct wl_output *output, int32_t x, int32_t y, int32_t pw, int32_t ph,
                            int32_t subpixel, const char *make, const char *model, int32_t transform) {}

static void output_mode(void *data, struct wl_output *output, uint32_t flags, int32_t width, int32_t height,
                        int32_t refresh) {}

static void output_done(void *data, struct wl_output *output) {
  EVENT(WT_OUTPUT_DONE, output);
  emit(data, &e);
}

static void output_scale(void *data, struct wl_output *output, int32_t factor) {
  EVENT(WT_OUTPUT_SCALE, output);
  e.value = factor;
  emit(data, &e);
}

static void output_name(void *data, struct wl_output *output, const char *name) {}
static void output_description(void *data, struct wl_output *output, const char *description) {}

static const struct wl_output_listener output_listener = {
    output_geometry, output_mode, output_done, output_scale, output_name, output_description};

void wt_listen_output(struct wl_output *output, const struct wt_sink *sink) {
  wl_output_add_listener(output, &output_listener, (void *)sink);
}

static void surface_enter(void *data, struct wl_surface *surface, struct wl_output *output) {
  EVENT(WT_SURFACE_ENTER, surface);
  e.other = output;
  emit(data, &e);
}

static void surface_leave(void *data, struct wl_surface *surface, struct wl_output *output) {
  EVENT(WT_SURFACE_LEAVE, surface);
  e.other = output;
  emit(data, &e);
}

static const struct wl_surface_listener surface_listener = {surface_enter, surface_leave};

void wt_listen_surface(struct wl_surface *surface, const struct wt_sink *sink) {
  wl_surface_add_listener(surface, &surface_listener, (void *)sink);
}

static void xdg_surface_configure(void *data, struct xdg_surface *surface, uint32_t serial) {
  EVENT(WT_XDG_SURFACE_CONFIGURE, surface);
  e.serial = serial;
  emit(data, &e);
}

static const struct xdg_surface_listener xdg_surface_listener = {xdg_surface_configure};

void wt_listen_xdg_surface(struct xdg_surface *surface, const struct wt_sink *sink) {
  xdg_surface_add_listener(surface, &xdg_surface_listener, (void *)sink);
}

static void toplevel_configure(void *data, struct xdg_toplevel *toplevel, int32_t width, int32_t height,
                               struct wl_array *states) {
  EVENT(WT_TOPLEVEL_CONFIGURE, toplevel);
  e.width = width;
  e.height = height;
  uint32_t *state;
  wl_array_for_each(state, states) {
    switch (*state) {
    case XDG_TOPLEVEL_STATE_MAXIMIZED: e.states |= WT_STATE_MAXIMIZED; break;
    case XDG_TOPLEVEL_STATE_FULLSCREEN: e.states |= WT_STATE_FULLSCREEN; break;
    case XDG_TOPLEVEL_STATE_RESIZING: e.states |= WT_STATE_RESIZING; break;
    case XDG_TOPLEVEL_STATE_ACTIVATED: e.states |= WT_STATE_ACTIVATED; break;
    default: break;
    }
  }
  emit(data, &e);
}

static void toplevel_close(void *data, struct xdg_toplevel *toplevel) {
  EVENT(WT_TOPLEVEL_CLOSE, toplevel);
  emit(data, &e);
}

static void toplevel_configure_bounds(void *data, struct xdg_toplevel *toplevel, int32_t width, int32_t height) {}
static void toplevel_wm_capabilities(void *data, struct xdg_toplevel *toplevel, struct wl_array *capabilities) {}

static const struct xdg_toplevel_listener toplevel_listener = {
    toplevel_configure, toplevel_close, toplevel_configure_bounds, toplevel_wm_capabilities};

void wt_listen_toplevel(struct xdg_toplevel *toplevel, const struct wt_sink *sink) {
  xdg_toplevel_add_listener(toplevel, &toplevel_listener, (void *)sink);
}

static void buffer_release(void *data, struct wl_buffer *buffer) {
  EVENT(WT_BUFFER_RELEASE, buffer);
  emit(data, &e);
}

static const struct wl_buffer_listener buffer_listener = {buffer_release};

void wt_listen_buffer(struct wl_buffer *buffer, const struct wt_sink *sink) {
  wl_buffer_add_listener(buffer, &buffer_listener, (void *)sink);
}

static void preferred_scale(void *data, struct wp_fractional_scale_v1 *scale, uint32_t value) {
  EVENT(WT_PREFERRED_SCALE, scale);
  e.value = (int32_t)value;
  emit(data, &e);
}

static const struct wp_fractional_scale_v1_listener fractional_listener = {preferred_scale};

void wt_listen_fractional_scale(struct wp_fractional_scale_v1 *scale, const struct wt_sink *sink) {
  wp_fractional_scale_v1_add_listener(scale, &fractional_listener, (void *)sink);
}

static void wm_base_ping(void *data, struct xdg_wm_base *base, uint32_t serial) { xdg_wm_base_pong(base, serial); }

static const struct xdg_wm_base_listener wm_base_listener = {wm_base_ping};

void wt_listen_wm_base(struct xdg_wm_base *base) { xdg_wm_base_add_listener(base, &wm_base_listener, NULL); }

int wt_shm_file(int64_t size) {
  int fd = memfd_create("touch-demo-buffer", MFD_CLOEXEC);
  if (fd < 0) return -1;
  if (ftruncate(fd, (off_t)size) < 0) {
    close(fd);
    return -1;
  }
  return fd;
}

void *wt_bind(struct wl_registry *registry, uint32_t name, const char *interface, uint32_t version) {
  static const struct wl_interface *const known[] = {
      &wl_compositor_interface, &wl_shm_interface,     &wl_seat_interface,
      &wl_output_interface,     &xdg_wm_base_interface, &wp_viewporter_interface,
      &wp_fractional_scale_manager_v1_interface,
  };
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
    if (strcmp(known[i]->name, interface) == 0) return wl_registry_bind(registry, name, known[i], version);
  }
  return NULL;
}
