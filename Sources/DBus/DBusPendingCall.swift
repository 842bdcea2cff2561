import EventTime

/// A method call waiting for its reply. `cancel()` drops it (the reply handler never runs).
public final class DBusPendingCall {
  private var reply: ((Result<DBusMessage, DBusError>) -> Void)?
  private var timer: ScheduledTimer?
  private let timeout: Seconds
  /// The call, for error texts (described only when one is needed: not before the call is sent).
  private var message: DBusMessage?
  /// Releases what the bus keeps for the call (its entry in the bus's table, libdbus's call).
  private var releaseHandler: (() -> Void)?
  /// Whether the reply handler ran or the call was cancelled.
  public var isFinished: Bool { reply == nil }

  /// A call answered by `reply`; the bus that sends it starts its deadline and finishes it.
  package init(
    message: DBusMessage?, timeout: Seconds, reply: @escaping (Result<DBusMessage, DBusError>) -> Void
  ) {
    self.timeout = timeout
    self.reply = reply
    self.message = message
  }

  /// "interface.member on path of destination", for error texts.
  private var what: String {
    guard let message else { return "call" }
    let member = [message.interface, message.member].compactMap { $0 }.joined(separator: ".")
    return "\(member) on \(message.path ?? "?") of \(message.destination ?? "?")"
  }

  /// Runs `handler` once when the call is finished, cancelled or abandoned.
  package func setReleaseHandler(_ handler: @escaping () -> Void) { releaseHandler = handler }

  /// Starts the deadline: `NoReply` when no answer came within the timeout.
  package func startDeadline(on scheduler: Scheduler) {
    guard reply != nil else { return }
    timer = scheduler.schedule(after: timeout) { [weak self] in self?.expire() }
  }

  /// The answer came (a method return or an error), or nil when the bus said there is none.
  package func completed(_ answer: DBusMessage?) {
    guard let answer else {
      finish(.failure(DBusError(DBusError.Name.noReply, "no reply to \(what)")))
      return
    }
    if answer.kind == .error, let error = answer.error {
      finish(.failure(error))
    } else {
      finish(.success(answer))
    }
  }

  private func expire() {
    guard reply != nil else { return }
    let ms = Int((timeout * 1000).rounded())
    finish(.failure(DBusError(DBusError.Name.noReply, "no reply to \(what) within \(ms) ms")))
  }

  /// Delivers `result` once and releases everything.
  package func finish(_ result: Result<DBusMessage, DBusError>) {
    guard let handler = reply else { return }
    release()
    handler(result)
  }

  /// Drops the call: the reply handler will not run.
  public func cancel() { release() }

  /// Releases without a callback (the connection is going away).
  package func abandon() { release() }

  private func release() {
    reply = nil
    message = nil
    timer?.cancel()
    timer = nil
    if let handler = releaseHandler {
      releaseHandler = nil
      handler()
    }
  }
}
