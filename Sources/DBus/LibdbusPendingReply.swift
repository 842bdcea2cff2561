internal import CDBus

/// libdbus's side of a method call in flight on a `DBusConnection`: its `DBusPendingCall*`, and
/// the notification that queues the reply for the connection (handled later, outside libdbus).
final class LibdbusPendingReply {
  private var raw: OpaquePointer?
  private weak var connection: DBusConnection?
  private weak var call: DBusPendingCall?

  private init(raw: OpaquePointer, connection: DBusConnection, call: DBusPendingCall) {
    self.raw = raw
    self.connection = connection
    self.call = call
  }

  /// Sends `message` on `link` with a reply expected (no libdbus timeout: the deadline is the
  /// scheduler's). Throws when libdbus cannot send it.
  static func send(
    _ message: DBusMessage, on link: DBusLink, connection: DBusConnection, call: DBusPendingCall
  ) throws(DBusError) -> LibdbusPendingReply {
    var pending: OpaquePointer?
    let sent = dbus_connection_send_with_reply(link.raw, message.raw, &pending, CDBUS_TIMEOUT_INFINITE)
    guard sent != 0, let pending else { throw sent == 0 ? DBusError.noMemory : DBusError.disconnected() }
    return LibdbusPendingReply(raw: pending, connection: connection, call: call)
  }

  /// Asks libdbus to notify us of the reply (which may be there already).
  func start() {
    guard let raw else { return }
    let box = Unmanaged.passRetained(self).toOpaque()
    if dbus_pending_call_set_notify(raw, dbusPendingNotify, box, dbusPendingFree) == 0 {
      Unmanaged<LibdbusPendingReply>.fromOpaque(box).release()
      call?.finish(.failure(DBusError.noMemory))
      return
    }
    if dbus_pending_call_get_completed(raw) != 0 { notified(raw) }
  }

  /// Called from libdbus (inside dispatch): queue, handle later.
  fileprivate func notified(_ pending: OpaquePointer) {
    let reply = dbus_pending_call_steal_reply(pending)
    guard let connection, let call else {
      if let reply { dbus_message_unref(reply) }
      return
    }
    connection.enqueueReply(call, reply)
  }

  /// Drops libdbus's call (its notification will not come).
  func cancel() {
    guard let raw else { return }
    self.raw = nil
    dbus_pending_call_cancel(raw)
    dbus_pending_call_unref(raw)
  }
}

private func dbusPendingNotify(_ pending: OpaquePointer?, _ data: UnsafeMutableRawPointer?) {
  guard let pending, let data else { return }
  Unmanaged<LibdbusPendingReply>.fromOpaque(data).takeUnretainedValue().notified(pending)
}

private func dbusPendingFree(_ data: UnsafeMutableRawPointer?) {
  guard let data else { return }
  Unmanaged<LibdbusPendingReply>.fromOpaque(data).release()
}
