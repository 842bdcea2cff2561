// KWin's fake input for the WaylandKeys sender: binding its global, and the end of a round trip.
#include "CWaylandClient.h"

struct org_kde_kwin_fake_input *wt_bind_fake_input(struct wl_registry *registry, uint32_t name, uint32_t version) {
  return wl_registry_bind(registry, name, &org_kde_kwin_fake_input_interface, version);
}

static void callback_done(void *data, struct wl_callback *callback, uint32_t value) {
  const struct wt_done_sink *sink = data;
  sink->done(sink->context, callback);
}

static const struct wl_callback_listener done_listener = {callback_done};

void wt_listen_done(struct wl_callback *callback, const struct wt_done_sink *sink) {
  wl_callback_add_listener(callback, &done_listener, (void *)sink);
}
