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

  /// Replies with `values`, which must match the declared out signature.
  public func reply(_ values: [DBusValue] = []) {
    guard values.signature == outSignature else {
      reply(
        error: DBusError.failed(
          "\(qualifiedMember) produced a reply of signature '\(values.signature)' instead of '\(outSignature)'"
        ))
      return
    }
    do {
      try send(message.makeReply(values))
    } catch {
      reply(error: error)
    }
  }

  /// Replies with an error.
  public func reply(error: DBusError) {
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
