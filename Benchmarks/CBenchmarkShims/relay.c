// The floors that read the same device as responderd: a process of its own reads an emulated
// headset with libevdev and does the least there is to do on the key, on a connection opened
// before (no reply awaited, nothing else read), so that responderd's ratio to it is only what the
// daemon adds.
#include "bench_shims.h"

#include <dbus/dbus.h>
#include <errno.h>
#include <fcntl.h>
#include <libevdev/libevdev.h>
#include <poll.h>
#include <pulse/pulseaudio.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/// The device opened with libevdev as responderd opens it (non-blocking, read only).
static struct libevdev *open_device(const char *device) {
  int fd = open(device, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    fprintf(stderr, "relay: %s: %s\n", device, strerror(errno));
    return NULL;
  }
  struct libevdev *evdev = NULL;
  int error = libevdev_new_from_fd(fd, &evdev);
  if (error < 0) {
    fprintf(stderr, "relay: libevdev on %s: %s\n", device, strerror(-error));
    close(fd);
    return NULL;
  }
  return evdev;
}

/// Every pending event of `evdev`; calls `on_press` with the code of each key press.
static void drain(struct libevdev *evdev, void (*on_press)(unsigned code, void *context), void *context) {
  struct input_event event;
  int status;
  while ((status = libevdev_next_event(evdev, LIBEVDEV_READ_FLAG_NORMAL, &event)) >= 0) {
    if (status == LIBEVDEV_READ_STATUS_SYNC) {
      while (libevdev_next_event(evdev, LIBEVDEV_READ_FLAG_SYNC, &event) == LIBEVDEV_READ_STATUS_SYNC) {
      }
      continue;
    }
    if (event.type == EV_KEY && event.value == 1) on_press(event.code, context);
  }
}

struct key_relay {
  DBusConnection *connection;
  const char *player;
};

static void send_play_pause(unsigned code, void *context) {
  struct key_relay *relay = context;
  if (code != KEY_PLAYPAUSE) return;
  DBusMessage *call = dbus_message_new_method_call(
    relay->player, "/org/mpris/MediaPlayer2", "org.mpris.MediaPlayer2.Player", "PlayPause");
  if (call == NULL) return;
  dbus_connection_send(relay->connection, call, NULL);
  dbus_message_unref(call);
  dbus_connection_flush(relay->connection);
}

int bench_key_floor(const char *device, const char *player) {
  DBusError error;
  dbus_error_init(&error);
  DBusConnection *connection = dbus_bus_get_private(DBUS_BUS_SESSION, &error);
  if (connection == NULL) {
    fprintf(stderr, "relay: session bus: %s\n", error.message);
    return 1;
  }
  struct libevdev *evdev = open_device(device);
  if (evdev == NULL) return 1;
  int bus_fd = -1;
  dbus_connection_get_unix_fd(connection, &bus_fd);
  struct key_relay relay = {connection, player};
  printf("ready\n");
  fflush(stdout);
  struct pollfd fds[2] = {{libevdev_get_fd(evdev), POLLIN, 0}, {bus_fd, POLLIN, 0}};
  for (;;) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return 1;
    }
    if (fds[0].revents & POLLIN) drain(evdev, send_play_pause, &relay);
    if (fds[1].revents & POLLIN) {
      // The replies and signals, dropped unread: the floor awaits nothing.
      if (!dbus_connection_read_write(connection, 0)) return 0;
      DBusMessage *message;
      while ((message = dbus_connection_pop_message(connection)) != NULL) dbus_message_unref(message);
    }
    if (fds[1].revents & (POLLHUP | POLLERR)) return 0;
  }
}

struct volume_relay {
  pa_context *context;
  struct libevdev *evdev;
  uint32_t sink;
  pa_cvolume volume;
  int known;
};

static void sink_info(pa_context *context, const pa_sink_info *info, int eol, void *userdata) {
  (void)context;
  struct volume_relay *relay = userdata;
  if (eol || info == NULL) return;
  relay->sink = info->index;
  relay->volume = info->volume;
  if (!relay->known) {
    relay->known = 1;
    printf("ready\n");
    fflush(stdout);
  }
}

static void set_volume(unsigned code, void *context) {
  struct volume_relay *relay = context;
  // 5 % a step, as the benchmark's responderd and thd are set up.
  pa_volume_t step = PA_VOLUME_NORM / 20;
  if (code == KEY_VOLUMEUP)
    pa_cvolume_inc_clamp(&relay->volume, step, PA_VOLUME_NORM);
  else if (code == KEY_VOLUMEDOWN)
    pa_cvolume_dec(&relay->volume, step);
  else
    return;
  pa_operation *operation =
    pa_context_set_sink_volume_by_index(relay->context, relay->sink, &relay->volume, NULL, NULL);
  if (operation != NULL) pa_operation_unref(operation);
}

static void device_readable(pa_mainloop_api *api, pa_io_event *event, int fd, pa_io_event_flags_t flags,
                            void *userdata) {
  (void)api, (void)event, (void)fd, (void)flags;
  struct volume_relay *relay = userdata;
  drain(relay->evdev, set_volume, relay);
}

static void context_state(pa_context *context, void *userdata) {
  struct volume_relay *relay = userdata;
  switch (pa_context_get_state(context)) {
  case PA_CONTEXT_READY: {
    pa_operation *operation = pa_context_get_sink_info_by_name(context, "@DEFAULT_SINK@", sink_info, relay);
    if (operation != NULL) pa_operation_unref(operation);
    break;
  }
  case PA_CONTEXT_FAILED:
  case PA_CONTEXT_TERMINATED:
    fprintf(stderr, "relay: the sound server connection ended\n");
    _exit(1);
  default:
    break;
  }
}

int bench_volume_floor(const char *device) {
  struct volume_relay relay = {0};
  relay.evdev = open_device(device);
  if (relay.evdev == NULL) return 1;
  pa_mainloop *mainloop = pa_mainloop_new();
  pa_mainloop_api *api = pa_mainloop_get_api(mainloop);
  relay.context = pa_context_new(api, "EndToEnd volume floor");
  pa_context_set_state_callback(relay.context, context_state, &relay);
  if (pa_context_connect(relay.context, NULL, PA_CONTEXT_NOFLAGS, NULL) < 0) {
    fprintf(stderr, "relay: %s\n", pa_strerror(pa_context_errno(relay.context)));
    return 1;
  }
  api->io_new(api, libevdev_get_fd(relay.evdev), PA_IO_EVENT_INPUT, device_readable, &relay);
  int status = 0;
  pa_mainloop_run(mainloop, &status);
  return status;
}
