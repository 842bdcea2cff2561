// The signal floor: what reading chatty players' signals costs with libdbus alone. It follows the
// players as responderd does (the same match rules), reads its socket in batches as responderd
// does (block until readable, read and dispatch until the socket is empty, then pause), and drops
// every message in its filter, so that responderd's ratio to it is only what the daemon adds.
#include "bench_shims.h"

#include <dbus/dbus.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

static volatile sig_atomic_t report_requested = 0;

static void request_report(int signal) {
  (void)signal;
  report_requested = 1;
}

static DBusHandlerResult drop(DBusConnection *connection, DBusMessage *message, void *data) {
  (void)connection, (void)message;
  ++*(unsigned long *)data;
  return DBUS_HANDLER_RESULT_HANDLED;
}

// The socket is read through libdbus's read watch, as responderd's loop does (no poll of its own).
static DBusWatch *read_watch = NULL;

static dbus_bool_t add_watch(DBusWatch *watch, void *data) {
  (void)data;
  if (dbus_watch_get_flags(watch) & DBUS_WATCH_READABLE) read_watch = watch;
  return TRUE;
}

static void remove_watch(DBusWatch *watch, void *data) {
  (void)data;
  if (watch == read_watch) read_watch = NULL;
}

static int add_match(DBusConnection *connection, const char *rule) {
  DBusError error;
  dbus_error_init(&error);
  dbus_bus_add_match(connection, rule, &error);
  if (dbus_error_is_set(&error)) {
    fprintf(stderr, "signal floor: %s: %s\n", rule, error.message);
    dbus_error_free(&error);
    return -1;
  }
  return 0;
}

/// The unique name owning `name`, copied into `owner`; -1 when nobody owns it.
static int name_owner(DBusConnection *connection, const char *name, char *owner, size_t size) {
  DBusMessage *call = dbus_message_new_method_call(
    "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner");
  if (call == NULL || !dbus_message_append_args(call, DBUS_TYPE_STRING, &name, DBUS_TYPE_INVALID)) return -1;
  DBusError error;
  dbus_error_init(&error);
  DBusMessage *reply = dbus_connection_send_with_reply_and_block(connection, call, 5000, &error);
  dbus_message_unref(call);
  const char *unique = NULL;
  if (reply == NULL || !dbus_message_get_args(reply, &error, DBUS_TYPE_STRING, &unique, DBUS_TYPE_INVALID)) {
    fprintf(stderr, "signal floor: the owner of %s: %s\n", name, error.message);
    dbus_error_free(&error);
    if (reply != NULL) dbus_message_unref(reply);
    return -1;
  }
  snprintf(owner, size, "%s", unique);
  dbus_message_unref(reply);
  return 0;
}

static int has_unread_bytes(int fd) {
  char byte;
  return recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) > 0;
}

int bench_signal_floor(int pause_ms, int count, char *const *names) {
  DBusError error;
  dbus_error_init(&error);
  DBusConnection *connection = dbus_bus_get_private(DBUS_BUS_SESSION, &error);
  if (connection == NULL) {
    fprintf(stderr, "signal floor: session bus: %s\n", error.message);
    return 1;
  }
  dbus_connection_set_exit_on_disconnect(connection, FALSE);
  // The rules responderd's player tracker adds: the MPRIS names coming and going, and for each
  // player its PropertiesChanged of the MPRIS interfaces and its Seeked.
  if (add_match(connection, "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',"
                            "member='NameOwnerChanged',path='/org/freedesktop/DBus',"
                            "arg0namespace='org.mpris.MediaPlayer2'") < 0)
    return 1;
  for (int index = 0; index < count; index++) {
    char owner[256], rule[1024];
    if (name_owner(connection, names[index], owner, sizeof owner) < 0) return 1;
    snprintf(rule, sizeof rule,
             "type='signal',sender='%s',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',"
             "path='/org/mpris/MediaPlayer2',arg0namespace='org.mpris.MediaPlayer2'",
             owner);
    if (add_match(connection, rule) < 0) return 1;
    snprintf(rule, sizeof rule,
             "type='signal',sender='%s',interface='org.mpris.MediaPlayer2.Player',member='Seeked',"
             "path='/org/mpris/MediaPlayer2'",
             owner);
    if (add_match(connection, rule) < 0) return 1;
  }
  unsigned long dropped = 0;
  dbus_connection_add_filter(connection, drop, &dropped, NULL);
  dbus_connection_set_watch_functions(connection, add_watch, remove_watch, NULL, NULL, NULL);
  int fd = -1;
  if (!dbus_connection_get_socket(connection, &fd) || read_watch == NULL) {
    fprintf(stderr, "signal floor: no socket to read\n");
    return 1;
  }
  // SIGUSR1: say how many messages were dropped so far (without SA_RESTART: poll returns).
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = request_report;
  sigaction(SIGUSR1, &action, NULL);
  printf("ready\n");
  fflush(stdout);
  struct pollfd readable = {fd, POLLIN, 0};
  for (;;) {
    if (report_requested) {
      report_requested = 0;
      printf("dropped %lu\n", dropped);
      fflush(stdout);
    }
    if (poll(&readable, 1, -1) < 0) {
      if (errno == EINTR) continue;
      return 1;
    }
    if (readable.revents & (POLLHUP | POLLERR)) return 0;
    // The batch, read whole: each read takes about 4 KB (libdbus's limit), so read until the
    // socket holds nothing more, dispatching what each read brought.
    do {
      if (read_watch == NULL || !dbus_watch_get_enabled(read_watch)) break;
      dbus_watch_handle(read_watch, DBUS_WATCH_READABLE);
      while (dbus_connection_dispatch(connection) == DBUS_DISPATCH_DATA_REMAINS) {
      }
    } while (has_unread_bytes(fd));
    if (!dbus_connection_get_is_connected(connection)) return 0;
    // The pause; a report asked for meanwhile cuts it short, which only makes the next batch
    // smaller.
    if (pause_ms > 0) poll(NULL, 0, pause_ms);
  }
}
