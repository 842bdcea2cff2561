#include <umockdev.h>
#include <errno.h>
#include <string.h>

/// An ioctl handler for one emulated evdev device that answers as the kernel does, with live state:
/// the static EVIOCG* answers of a fixture, EVIOCGKEY from the keys the test holds down, EVIOCSCLOCKID
/// accepted, and EVIOCGRAB modelled (a second grab gets EBUSY, releasing an ungrabbed device EINVAL).
/// umockdev itself does not model grabs. The handler runs on umockdev's thread: the fields the test
/// reads or writes are accessed atomically.
typedef struct rsp_evdev_ioctl {
  int grabbed;
  int grabs;
  int busy;
  unsigned char keys[96];
  int count;
  unsigned long requests[64];
  long results[64];
  int lengths[64];
  unsigned char answers[64][2048];
} rsp_evdev_ioctl;

static inline gboolean rsp_evdev_ioctl_handle(UMockdevIoctlBase *base, UMockdevIoctlClient *client, gpointer user) {
  (void)base;
  rsp_evdev_ioctl *state = user;
  unsigned long request = umockdev_ioctl_client_get_request(client) & 0xffffffffUL;
  UMockdevIoctlData *arg = umockdev_ioctl_client_get_arg(client);
  if (request == 0x400445a0UL) { /* EVIOCSCLOCKID */
    umockdev_ioctl_client_complete(client, 0, 0);
    return TRUE;
  }
  if (request == 0x40044590UL) { /* EVIOCGRAB: the argument is the value itself */
    int grab = 0;
    for (int i = 0; i < arg->data_len; i++) grab |= arg->data[i] != 0;
    int held = __atomic_load_n(&state->grabbed, __ATOMIC_SEQ_CST);
    if (grab == held) {
      if (grab) __atomic_add_fetch(&state->busy, 1, __ATOMIC_SEQ_CST);
      umockdev_ioctl_client_complete(client, -1, grab ? EBUSY : EINVAL);
      return TRUE;
    }
    if (grab) __atomic_add_fetch(&state->grabs, 1, __ATOMIC_SEQ_CST);
    __atomic_store_n(&state->grabbed, grab, __ATOMIC_SEQ_CST);
    umockdev_ioctl_client_complete(client, 0, 0);
    return TRUE;
  }
  if (request == ((2UL << 30) | (96UL << 16) | ('E' << 8) | 0x18)) { /* EVIOCGKEY(96) */
    unsigned char bits[96];
    for (int i = 0; i < 96; i++) bits[i] = __atomic_load_n(&state->keys[i], __ATOMIC_SEQ_CST);
    UMockdevIoctlData *buffer = umockdev_ioctl_data_resolve(arg, 0, 96, NULL);
    if (buffer) {
      umockdev_ioctl_data_update(buffer, 0, bits, 96);
      umockdev_ioctl_data_unref(buffer);
    }
    umockdev_ioctl_client_complete(client, 96, 0);
    return TRUE;
  }
  for (int i = 0; i < state->count; i++) {
    if (state->requests[i] != request) continue;
    UMockdevIoctlData *buffer = umockdev_ioctl_data_resolve(arg, 0, state->lengths[i], NULL);
    int answer = i;
    if ((request & 0xff) == 0x0a && buffer && buffer->data_len >= 4) {
      /* EVIOCGMTSLOTS: the caller names the axis in the first int; one answer per axis. */
      for (int j = i; j < state->count; j++) {
        if (state->requests[j] == request && memcmp(state->answers[j], buffer->data, 4) == 0) {
          answer = j;
          break;
        }
      }
    }
    if (buffer) {
      umockdev_ioctl_data_update(buffer, 0, state->answers[answer], state->lengths[answer]);
      umockdev_ioctl_data_unref(buffer);
    }
    umockdev_ioctl_client_complete(client, state->results[answer], 0);
    return TRUE;
  }
  umockdev_ioctl_client_complete(client, -1, ENOENT); /* e.g. EVIOCGUNIQ */
  return TRUE;
}

/// Connects the handler to `handler`'s "handle-ioctl" signal with `state`.
static inline gulong rsp_evdev_ioctl_connect(UMockdevIoctlBase *handler, rsp_evdev_ioctl *state) {
  return g_signal_connect(handler, "handle-ioctl", G_CALLBACK(rsp_evdev_ioctl_handle), state);
}

static inline int rsp_evdev_ioctl_grabbed(rsp_evdev_ioctl *state) {
  return __atomic_load_n(&state->grabbed, __ATOMIC_SEQ_CST);
}

static inline void rsp_evdev_ioctl_set_grabbed(rsp_evdev_ioctl *state, int grabbed) {
  __atomic_store_n(&state->grabbed, grabbed, __ATOMIC_SEQ_CST);
}

static inline int rsp_evdev_ioctl_grabs(rsp_evdev_ioctl *state) {
  return __atomic_load_n(&state->grabs, __ATOMIC_SEQ_CST);
}

static inline int rsp_evdev_ioctl_busy(rsp_evdev_ioctl *state) {
  return __atomic_load_n(&state->busy, __ATOMIC_SEQ_CST);
}

/// Marks `code` down (1) or up (0) in the device's key state (what EVIOCGKEY answers).
static inline void rsp_evdev_ioctl_set_key(rsp_evdev_ioctl *state, unsigned code, int down) {
  if (code >= 96 * 8) return;
  unsigned char bit = (unsigned char)(1u << (code % 8));
  if (down) __atomic_or_fetch(&state->keys[code / 8], bit, __ATOMIC_SEQ_CST);
  else __atomic_and_fetch(&state->keys[code / 8], (unsigned char)~bit, __ATOMIC_SEQ_CST);
}
