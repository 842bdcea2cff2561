#include "CPulse.h"

#include <CLibraryLoader.h>

static rsp_library libpulse = {.soname = "libpulse.so.0"};

int rsp_pulse_load(void) { return rsp_library_load(&libpulse); }

const char *rsp_pulse_load_error(void) { return libpulse.error; }

#define FORWARD(type, fail, name, params, args) RSP_FORWARD(libpulse, type, fail, name, params, args)
#define FORWARD_VOID(name, params, args) RSP_FORWARD_VOID(libpulse, name, params, args)

FORWARD(pa_proplist *, NULL, pa_proplist_new, (void), ())
FORWARD_VOID(pa_proplist_free, (pa_proplist *p), (p))
FORWARD(int, -1, pa_proplist_sets, (pa_proplist *p, const char *key, const char *value), (p, key, value))
FORWARD(const char *, NULL, pa_proplist_iterate, (const pa_proplist *p, void **state), (p, state))
FORWARD(const char *, NULL, pa_proplist_gets, (const pa_proplist *p, const char *key), (p, key))
FORWARD(pa_context *, NULL, pa_context_new_with_proplist, (pa_mainloop_api *mainloop, const char *name, const pa_proplist *proplist), (mainloop, name, proplist))
FORWARD_VOID(pa_context_set_state_callback, (pa_context *c, pa_context_notify_cb_t cb, void *userdata), (c, cb, userdata))
FORWARD(int, -1, pa_context_connect, (pa_context *c, const char *server, pa_context_flags_t flags, const pa_spawn_api *api), (c, server, flags, api))
FORWARD(pa_context_state_t, PA_CONTEXT_FAILED, pa_context_get_state, (const pa_context *c), (c))
FORWARD(int, PA_ERR_NOTIMPLEMENTED, pa_context_errno, (const pa_context *c), (c))
FORWARD(const char *, "libpulse is not installed", pa_strerror, (int error), (error))
FORWARD_VOID(pa_context_set_subscribe_callback, (pa_context *c, pa_context_subscribe_cb_t cb, void *userdata), (c, cb, userdata))
FORWARD(pa_operation *, NULL, pa_context_subscribe, (pa_context *c, pa_subscription_mask_t m, pa_context_success_cb_t cb, void *userdata), (c, m, cb, userdata))
FORWARD_VOID(pa_operation_unref, (pa_operation *o), (o))
FORWARD(pa_operation *, NULL, pa_context_get_sink_info_list, (pa_context *c, pa_sink_info_cb_t cb, void *userdata), (c, cb, userdata))
FORWARD(pa_operation *, NULL, pa_context_get_sink_info_by_index, (pa_context *c, uint32_t idx, pa_sink_info_cb_t cb, void *userdata), (c, idx, cb, userdata))
FORWARD(pa_operation *, NULL, pa_context_get_server_info, (pa_context *c, pa_server_info_cb_t cb, void *userdata), (c, cb, userdata))
FORWARD(pa_operation *, NULL, pa_context_set_sink_volume_by_index, (pa_context *c, uint32_t idx, const pa_cvolume *volume, pa_context_success_cb_t cb, void *userdata), (c, idx, volume, cb, userdata))
FORWARD(pa_operation *, NULL, pa_context_set_sink_mute_by_index, (pa_context *c, uint32_t idx, int mute, pa_context_success_cb_t cb, void *userdata), (c, idx, mute, cb, userdata))
FORWARD_VOID(pa_context_disconnect, (pa_context *c), (c))
FORWARD_VOID(pa_context_unref, (pa_context *c), (c))
