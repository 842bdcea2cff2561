import DBus
import EventLoop
import EventTime
import ResponderInterfaces

#if canImport(Glibc)
  import Glibc
#endif

/// What an application needs around its `ResponderClient`: the event loop of its main thread and
/// its connection to the session bus, so that an app imports `ResponderClient` and nothing else.
/// Everything runs on the thread that calls `run()`: event handlers, timers, bus replies.
public final class ClientSession {
  /// The loop the client's events, replies and timers arrive on.
  let loop: EventLoop
  /// The session-bus connection the client's responder object is exported on.
  public let connection: DBusConnection
  private var signalSource: IOSource?

  /// Opens an event loop and connects to the session bus (`DBUS_SESSION_BUS_ADDRESS`, else
  /// `$XDG_RUNTIME_DIR/bus`).
  public init() throws {
    loop = try EventLoop()
    connection = try DBusConnection.session(loop: loop)
  }

  /// The clock and timers of the loop (CLOCK_MONOTONIC): give it to the app's `Application`.
  public var scheduler: any Scheduler { loop.scheduler }

  /// Runs the loop until `stop()`.
  public func run() { loop.run() }

  /// Makes `run()` return after the current turn.
  public func stop() { loop.stop() }

  /// Calls `action` on the loop when the process receives SIGINT or SIGTERM (instead of being
  /// killed), so that the app can unregister before it exits.
  public func onTermination(_ action: @escaping () -> Void) throws {
    signalSource = try loop.onSignals([SIGINT, SIGTERM]) { _ in action() }
  }

  /// Sends what is queued on the bus and closes the connection (after `run()` returned).
  public func close() {
    connection.flush()
    connection.close()
  }
}

extension ResponderClient {
  /// Exports the responder object at `path` on the session's bus connection.
  public convenience init(
    session: ClientSession, path: String = "/org/responderd/Responder", eventTypes: Set<EventType>
  ) throws {
    try self.init(connection: session.connection, path: path, eventTypes: eventTypes)
  }
}
