/// An incoming method call on an exported object. Reply exactly once, now or later (the loop
/// goes on meanwhile); a call dropped without a reply is answered with `…Error.Failed`.
public final class DBusMethodCall {
  public let message: DBusMessage
  /// The declared out signature the reply must have.
  public let outSignature: String
  /// Sends the reply through the bus the call came from (nothing when that bus is gone).
  private let sendReply: (DBusMessage) throws(DBusError) -> Void
  public private(set) var hasReplied = false

  /// A call whose replies go out through `send`.
  package init(
    message: DBusMessage, outSignature: String, send: @escaping (DBusMessage) throws(DBusError) -> Void
  ) {
    self.message = message
    self.outSignature = outSignature
    self.sendReply = send
  }

  deinit {
    if !hasReplied {
      reply(error: DBusError.failed("\(qualifiedMember) returned no reply"))
    }
  }

  public var arguments: [DBusValue] { message.arguments }
  /// The caller's unique name.
  public var sender: String { message.sender ?? "" }
  public var path: String { message.path ?? "" }
  public var interface: String? { message.interface }
  public var member: String { message.member ?? "" }
  var qualifiedMember: String { [interface, member].compactMap { $0 }.joined(separator: ".") }

  /// Replies with `values`, which must match the declared out signature. When they cannot make
  /// a reply (a descriptor that cannot be duplicated: the process has none left), the caller gets
  /// that error instead (`replyOrError` returns it).
  public func reply(_ values: [DBusValue] = []) {
    _ = replyOrError(values)
  }

  /// Replies with `values` as `reply(_:)` does; returns the error the caller got instead when they
  /// could not make a reply, nil when they did.
  public func replyOrError(_ values: [DBusValue]) -> DBusError? {
    guard values.signature == outSignature else {
      let error = DBusError.failed(
        "\(qualifiedMember) produced a reply of signature '\(values.signature)' instead of '\(outSignature)'")
      reply(error: error)
      return error
    }
    do {
      try send(message.makeReply(values))
      return nil
    } catch {
      reply(error: error)
      return error
    }
  }

  /// The longest error message sent to a caller, in characters: a caller's argument echoed in it
  /// (an unknown name of 1 MB) is cut as log lines cut it.
  public static let longestErrorMessage = 1000

  /// Replies with an error (its message cut to `longestErrorMessage` characters).
  public func reply(error: DBusError) {
    var error = error
    if error.message.count > Self.longestErrorMessage {
      error.message =
        String(error.message.prefix(Self.longestErrorMessage - 40)) + "… (\(error.message.count) characters)"
    }
    try? send(message.makeError(error))
  }

  /// Replies with a result.
  public func reply(_ result: Result<[DBusValue], DBusError>) {
    switch result {
    case .success(let values): reply(values)
    case .failure(let error): reply(error: error)
    }
  }

  private func send(_ reply: DBusMessage) throws(DBusError) {
    guard !hasReplied else { return }
    hasReplied = true
    // No reply wanted: nobody is waiting.
    guard !message.noReplyExpected else { return }
    try sendReply(reply)
  }
}
