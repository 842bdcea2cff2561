#ifndef RESPONDERD_CDBUS_SHIM_H
#define RESPONDERD_CDBUS_SHIM_H

#include <dbus/dbus.h>
#include <malloc.h>
#include <errno.h>
#include <stdint.h>

// Type codes: the DBUS_TYPE_* macros are casts ((int) 's') that Swift does not import.
static const int CDBUS_TYPE_INVALID = DBUS_TYPE_INVALID;
static const int CDBUS_TYPE_BYTE = DBUS_TYPE_BYTE;
static const int CDBUS_TYPE_BOOLEAN = DBUS_TYPE_BOOLEAN;
static const int CDBUS_TYPE_INT16 = DBUS_TYPE_INT16;
static const int CDBUS_TYPE_UINT16 = DBUS_TYPE_UINT16;
static const int CDBUS_TYPE_INT32 = DBUS_TYPE_INT32;
static const int CDBUS_TYPE_UINT32 = DBUS_TYPE_UINT32;
static const int CDBUS_TYPE_INT64 = DBUS_TYPE_INT64;
static const int CDBUS_TYPE_UINT64 = DBUS_TYPE_UINT64;
static const int CDBUS_TYPE_DOUBLE = DBUS_TYPE_DOUBLE;
static const int CDBUS_TYPE_STRING = DBUS_TYPE_STRING;
static const int CDBUS_TYPE_OBJECT_PATH = DBUS_TYPE_OBJECT_PATH;
static const int CDBUS_TYPE_SIGNATURE = DBUS_TYPE_SIGNATURE;
static const int CDBUS_TYPE_UNIX_FD = DBUS_TYPE_UNIX_FD;
static const int CDBUS_TYPE_ARRAY = DBUS_TYPE_ARRAY;
static const int CDBUS_TYPE_VARIANT = DBUS_TYPE_VARIANT;
static const int CDBUS_TYPE_STRUCT = DBUS_TYPE_STRUCT;
static const int CDBUS_TYPE_DICT_ENTRY = DBUS_TYPE_DICT_ENTRY;

static const int CDBUS_TIMEOUT_INFINITE = DBUS_TIMEOUT_INFINITE;
static const int CDBUS_MAXIMUM_SIGNATURE_LENGTH = DBUS_MAXIMUM_SIGNATURE_LENGTH;

/// Appends a fixed-size basic value (every basic type but strings, paths and signatures).
static inline dbus_bool_t cdbus_append_fixed(DBusMessageIter *iter, int type, DBusBasicValue value) {
  return dbus_message_iter_append_basic(iter, type, &value);
}

/// Appends a string, object path or signature.
static inline dbus_bool_t cdbus_append_string(DBusMessageIter *iter, int type, const char *value) {
  return dbus_message_iter_append_basic(iter, type, &value);
}

/// Gives the heap's free memory back to the system when more than `threshold` bytes of it are
/// free (a flood of messages leaves the heap grown and fragmented); returns whether it did.
static inline int cdbus_release_free_heap(size_t threshold) {
  struct mallinfo2 info = mallinfo2();
  if (info.fordblks <= threshold) return 0;
  return malloc_trim(0);
}

/// Reads the basic value at the iterator (for a unix fd, a new descriptor the caller owns).
static inline DBusBasicValue cdbus_get_basic(DBusMessageIter *iter) {
  DBusBasicValue value;
  value.u64 = 0;
  dbus_message_iter_get_basic(iter, &value);
  return value;
}

/// A zeroed DBusError ready for use.
static inline DBusError cdbus_error_init(void) {
  DBusError error;
  dbus_error_init(&error);
  return error;
}

#endif
