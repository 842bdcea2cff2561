// See CWaylandKeys.h. KWin's fake input interface is in third_party/plasma-wayland-protocols/,
// which wayland-scanner generated (see README.md); its inline request helpers call
// libwayland-client directly, so the requests are written out here on the functions looked up at
// run time.
#include <errno.h>

#include "CWaylandKeys.h"
#include "third_party/plasma-wayland-protocols/fake-input-client-protocol.h"
#include "wayland.h"

struct wl_display *rsp_wayland_connect(const char *display_name) {
  if (!rsp_wayland_display_exists(display_name)) {
    errno = ENOENT;
    return NULL;
  }
  if (!rsp_wayland_load()) {
    errno = ENOSYS;
    return NULL;
  }
  return rsp_wl.connect(display_name);
}

void rsp_wayland_disconnect(struct wl_display *display) { rsp_wl.disconnect(display); }

int rsp_wayland_get_fd(struct wl_display *display) { return rsp_wl.get_fd(display); }

int rsp_wayland_get_error(struct wl_display *display) { return rsp_wl.get_error(display); }

int rsp_wayland_read(struct wl_display *display) {
  // prepare_read fails while events are queued already: they are dispatched without reading.
  if (rsp_wl.prepare_read(display) == 0 && rsp_wl.read_events(display) < 0) return -1;
  return rsp_wl.dispatch_pending(display) < 0 ? -1 : 0;
}

int rsp_wayland_flush(struct wl_display *display) { return rsp_wl.flush(display); }

static void sink_global(void *data, struct wl_registry *registry, uint32_t name, const char *interface,
                        uint32_t version) {
  const struct rsp_wayland_sink *sink = data;
  sink->global(sink->context, name, interface, version);
}

static void sink_global_remove(void *data, struct wl_registry *registry, uint32_t name) {}

static const struct wl_registry_listener registry_listener = {sink_global, sink_global_remove};

static void sink_done(void *data, struct wl_callback *callback, uint32_t value) {
  const struct rsp_wayland_sink *sink = data;
  sink->done(sink->context, callback);
}

static const struct wl_callback_listener callback_listener = {sink_done};

struct wl_registry *rsp_wayland_get_registry(struct wl_display *display, const struct rsp_wayland_sink *sink) {
  struct wl_proxy *registry = rsp_wl.marshal((struct wl_proxy *)display, WL_DISPLAY_GET_REGISTRY,
                                             rsp_wl.registry_interface, rsp_wl.get_version((struct wl_proxy *)display),
                                             0, NULL);
  if (registry) rsp_wl.add_listener(registry, (void (**)(void))&registry_listener, (void *)sink);
  return (struct wl_registry *)registry;
}

struct wl_callback *rsp_wayland_sync(struct wl_display *display, const struct rsp_wayland_sink *sink) {
  struct wl_proxy *callback = rsp_wl.marshal((struct wl_proxy *)display, WL_DISPLAY_SYNC, rsp_wl.callback_interface,
                                             rsp_wl.get_version((struct wl_proxy *)display), 0, NULL);
  if (callback) rsp_wl.add_listener(callback, (void (**)(void))&callback_listener, (void *)sink);
  return (struct wl_callback *)callback;
}

void rsp_wayland_registry_destroy(struct wl_registry *registry) { rsp_wl.destroy((struct wl_proxy *)registry); }

void rsp_wayland_callback_destroy(struct wl_callback *callback) { rsp_wl.destroy((struct wl_proxy *)callback); }

struct org_kde_kwin_fake_input *rsp_kwin_fake_input_bind(struct wl_registry *registry, uint32_t name,
                                                         uint32_t version) {
  const struct wl_interface *interface = &org_kde_kwin_fake_input_interface;
  return (struct org_kde_kwin_fake_input *)rsp_wl.marshal((struct wl_proxy *)registry, WL_REGISTRY_BIND, interface,
                                                          version, 0, name, interface->name, version, NULL);
}

void rsp_kwin_fake_input_authenticate(struct org_kde_kwin_fake_input *input, const char *application,
                                      const char *reason) {
  struct wl_proxy *proxy = (struct wl_proxy *)input;
  rsp_wl.marshal(proxy, ORG_KDE_KWIN_FAKE_INPUT_AUTHENTICATE, NULL, rsp_wl.get_version(proxy), 0, application,
                 reason);
}

void rsp_kwin_fake_input_key(struct org_kde_kwin_fake_input *input, uint32_t key, uint32_t state) {
  struct wl_proxy *proxy = (struct wl_proxy *)input;
  rsp_wl.marshal(proxy, ORG_KDE_KWIN_FAKE_INPUT_KEYBOARD_KEY, NULL, rsp_wl.get_version(proxy), 0, key, state);
}

void rsp_kwin_fake_input_destroy(struct org_kde_kwin_fake_input *input) { rsp_wl.destroy((struct wl_proxy *)input); }
