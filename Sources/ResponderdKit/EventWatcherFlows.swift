import DBus
import EventTime
import Logging

/// Keeps the dispatch signals to the connections that called `WatchEvents` flowing only as fast
/// as each reads them, so that a watcher that stops reading costs neither the daemon's memory nor
/// its answers to everyone else.
///
/// Every `pingEvery` events a watcher is pinged (`org.freedesktop.DBus.Peer.Ping`, which every
/// D-Bus library answers as it reads its messages): an answer says it has read every signal sent
/// before. A watcher more than `mostUnread` events behind gets no signals until it answers (one
/// log line says so, one more when it reads again); one that leaves a ping unanswered for
/// `pingTimeout` seconds does not read at all and is dropped (it may call WatchEvents again).
final class EventWatcherFlows {
  /// Events between pings.
  static let pingEvery = 32
  /// The most events sent to a watcher that it may not have read.
  static let mostUnread = 256
  /// How long a ping may stay unanswered before its watcher is dropped.
  static let pingTimeout: Seconds = 10
  /// What the bus answers when the watcher's queue is full.
  static let limitsExceeded = "org.freedesktop.DBus.Error.LimitsExceeded"

  private struct Flow {
    /// Events sent to it.
    var sent = 0
    /// Events it has read (sent before the last answered ping).
    var read = 0
    /// Whether a ping is waiting for its answer.
    var pinging = false
    /// Events not sent to it since it fell behind.
    var skipped = 0
  }

  private var flows: [String: Flow] = [:]
  private let logger: Logger
  /// Removes a watcher that does not read (its WatchEvents ends).
  private let drop: (String) -> Void

  init(logger: Logger, drop: @escaping (String) -> Void) {
    self.logger = logger
    self.drop = drop
  }

  /// Forgets `watcher` (unwatched, gone, or the bus lost).
  func remove(_ watcher: String) { flows[watcher] = nil }

  func removeAll() { flows.removeAll() }

  /// Whether an event's signals go to `watcher` now (counted as sent when they do); pings it
  /// through `bus` when due.
  func admit(_ watcher: String, on bus: (any MessageBus)?) -> Bool {
    var flow = flows[watcher] ?? Flow()
    defer { flows[watcher] = flow }
    guard flow.sent - flow.read < Self.mostUnread else {
      if flow.skipped == 0 {
        logger.notice(
          "responders: event watcher \(watcher) has not read the last \(Self.mostUnread) events: no more are sent to it until it does"
        )
      }
      flow.skipped += 1
      return false
    }
    flow.sent += 1
    if !flow.pinging, flow.sent - flow.read >= Self.pingEvery, let bus {
      flow.pinging = true
      ping(watcher, upTo: flow.sent, on: bus)
    }
    return true
  }

  private func ping(_ watcher: String, upTo sent: Int, on bus: any MessageBus) {
    bus.call(
      destination: watcher, path: "/", interface: "org.freedesktop.DBus.Peer", method: "Ping",
      timeout: Self.pingTimeout
    ) { [weak self] result in
      guard let self, var flow = self.flows[watcher] else { return }
      flow.pinging = false
      // Any answer, an error included, was made after reading what came before the ping.
      if case .failure(let error) = result,
        [DBusError.Name.noReply, DBusError.Name.timeout, Self.limitsExceeded].contains(error.name)
      {
        self.flows[watcher] = nil
        self.logger.notice(
          "responders: event watcher \(watcher) has not read its messages for \(Int(Self.pingTimeout)) s: dropped (\(flow.sent) events sent, \(flow.skipped) not)"
        )
        self.drop(watcher)
        return
      }
      flow.read = max(flow.read, sent)
      if flow.skipped > 0 {
        self.logger.notice(
          "responders: event watcher \(watcher) reads again: \(flow.skipped) events were not sent to it")
        flow.skipped = 0
      }
      self.flows[watcher] = flow
    }
  }
}
