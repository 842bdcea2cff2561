#ifndef RESPONDERD_CPULSE_H
#define RESPONDERD_CPULSE_H

// libpulse (the sound server's client library: PulseAudio, PipeWire's pipewire-pulse), loaded on
// first use (dlopen of libpulse.so.0) rather than linked: it brings libpulsecommon, libsndfile and
// its codecs, libX11 and libxcb, which a daemon whose volume keys are never pressed does not need.
// Each rsp_pa_X calls libpulse's pa_X; when libpulse cannot be loaded, it fails as pa_X fails
// (NULL, a negative number, PA_CONTEXT_FAILED), and rsp_pulse_load_error() says why.

#include <pulse/pulseaudio.h>
#include <stdint.h>
#include <sys/time.h>

/// Loads libpulse if it is not yet; 1 when it is there, 0 when it cannot be loaded.
int rsp_pulse_load(void);
/// Why libpulse could not be loaded (dlerror), or NULL.
const char *rsp_pulse_load_error(void);

pa_proplist *rsp_pa_proplist_new(void);
void rsp_pa_proplist_free(pa_proplist *p);
int rsp_pa_proplist_sets(pa_proplist *p, const char *key, const char *value);
const char *rsp_pa_proplist_iterate(const pa_proplist *p, void **state);
const char *rsp_pa_proplist_gets(const pa_proplist *p, const char *key);
pa_context *rsp_pa_context_new_with_proplist(pa_mainloop_api *mainloop, const char *name, const pa_proplist *proplist);
void rsp_pa_context_set_state_callback(pa_context *c, pa_context_notify_cb_t cb, void *userdata);
int rsp_pa_context_connect(pa_context *c, const char *server, pa_context_flags_t flags, const pa_spawn_api *api);
pa_context_state_t rsp_pa_context_get_state(const pa_context *c);
int rsp_pa_context_errno(const pa_context *c);
const char *rsp_pa_strerror(int error);
void rsp_pa_context_set_subscribe_callback(pa_context *c, pa_context_subscribe_cb_t cb, void *userdata);
pa_operation *rsp_pa_context_subscribe(pa_context *c, pa_subscription_mask_t m, pa_context_success_cb_t cb, void *userdata);
void rsp_pa_operation_unref(pa_operation *o);
pa_operation *rsp_pa_context_get_sink_info_list(pa_context *c, pa_sink_info_cb_t cb, void *userdata);
pa_operation *rsp_pa_context_get_sink_info_by_index(pa_context *c, uint32_t idx, pa_sink_info_cb_t cb, void *userdata);
pa_operation *rsp_pa_context_get_server_info(pa_context *c, pa_server_info_cb_t cb, void *userdata);
pa_operation *rsp_pa_context_set_sink_volume_by_index(pa_context *c, uint32_t idx, const pa_cvolume *volume, pa_context_success_cb_t cb, void *userdata);
pa_operation *rsp_pa_context_set_sink_mute_by_index(pa_context *c, uint32_t idx, int mute, pa_context_success_cb_t cb, void *userdata);
void rsp_pa_context_disconnect(pa_context *c);
void rsp_pa_context_unref(pa_context *c);

// Macros Swift does not import (casts, internal ones).
static const uint32_t CPULSE_INVALID_INDEX = PA_INVALID_INDEX;
/// The bit libpulse sets in a time event's `tv_usec` when the time is on the monotonic clock
/// (pulsecore/rtclock.h: PA_TIMEVAL_RTCLOCK, not in the public headers).
static const long CPULSE_TIMEVAL_RTCLOCK = 1L << 30;

/// Whether a context state is final (failed or terminated).
static inline int cpulse_context_is_final(pa_context_state_t state) {
  return state == PA_CONTEXT_FAILED || state == PA_CONTEXT_TERMINATED;
}

#endif
