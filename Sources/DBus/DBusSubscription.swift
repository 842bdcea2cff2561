internal import CDBus

/// A match rule: which messages a subscription wants (the bus routes by it, and the connection
/// filters locally with it, since the bus delivers the union of all rules).
///
/// ```swift
/// DBusMatchRule(interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
///               path: "/org/mpris/MediaPlayer2")
/// ```
public struct DBusMatchRule: Sendable, Hashable, CustomStringConvertible {
  /// The message kind (signals by default).
  public var kind: DBusMessage.Kind?
  /// A unique name, or a well-known name (resolved to its current owner).
  public var sender: String?
  public var interface: String?
  public var member: String?
  public var path: String?
  /// Matches `pathNamespace` itself and every path below it.
  public var pathNamespace: String?
  public var destination: String?
  /// String arguments that must be equal (index → value), e.g. `[0: "org.mpris.MediaPlayer2.mpv"]`.
  public var arguments: [Int: String]
  /// The first argument is this bus name or one below it (`org.mpris.MediaPlayer2` matches
  /// `org.mpris.MediaPlayer2.mpv`).
  public var arg0Namespace: String?

  public init(
    kind: DBusMessage.Kind? = .signal, sender: String? = nil, interface: String? = nil, member: String? = nil,
    path: String? = nil, pathNamespace: String? = nil, destination: String? = nil,
    arguments: [Int: String] = [:], arg0Namespace: String? = nil
  ) {
    self.kind = kind
    self.sender = sender
    self.interface = interface
    self.member = member
    self.path = path
    self.pathNamespace = pathNamespace
    self.destination = destination
    self.arguments = arguments
    self.arg0Namespace = arg0Namespace
  }

  /// The rule in the bus's syntax (`type='signal',interface='…'`).
  public var description: String {
    var parts: [String] = []
    func add(_ key: String, _ value: String?) {
      guard let value else { return }
      parts.append("\(key)='\(value.replacingAll("'", with: "'\\''"))'")
    }
    add("type", kind.map { "\($0)" })
    add("sender", sender)
    add("interface", interface)
    add("member", member)
    add("path", path)
    add("path_namespace", pathNamespace)
    add("destination", destination)
    for (index, value) in arguments.sorted(by: { $0.key < $1.key }) { add("arg\(index)", value) }
    add("arg0namespace", arg0Namespace)
    return parts.joined(separator: ",")
  }

  /// The member, interface and path of a rule as C strings, made once by its subscription: every
  /// signal the bus sends is compared with them (a short `String` handed to C is copied each time).
  struct HeaderFields {
    let member: ContiguousArray<CChar>?
    let interface: ContiguousArray<CChar>?
    let path: ContiguousArray<CChar>?

    init(_ rule: DBusMatchRule) {
      member = rule.member?.utf8CString
      interface = rule.interface?.utf8CString
      path = rule.path?.utf8CString
    }
  }

  /// Whether `message` matches every field but the sender (checked by the subscription, which
  /// knows the owner of a well-known sender name); `fields` are this rule's.
  func matchesIgnoringSender(_ message: DBusMessage, fields: HeaderFields) -> Bool {
    if let kind, message.kind != kind { return false }
    let raw = message.raw
    if let member = fields.member,
      member.withUnsafeBufferPointer({ dbus_message_has_member(raw, $0.baseAddress) }) == 0
    {
      return false
    }
    if let interface = fields.interface,
      interface.withUnsafeBufferPointer({ dbus_message_has_interface(raw, $0.baseAddress) }) == 0
    {
      return false
    }
    if let path = fields.path,
      path.withUnsafeBufferPointer({ dbus_message_has_path(raw, $0.baseAddress) }) == 0
    {
      return false
    }
    if let pathNamespace {
      guard let messagePath = message.path else { return false }
      let prefix = pathNamespace == "/" ? "/" : pathNamespace + "/"
      if messagePath != pathNamespace && !messagePath.hasPrefix(prefix) { return false }
    }
    if let destination, message.destination != destination { return false }
    // Only the string arguments compared are read (not every argument: a PropertiesChanged
    // carries a dictionary that its subscriber may not want decoded).
    if !arguments.isEmpty {
      for (index, expected) in arguments {
        guard message.stringArgument(at: index) == expected else { return false }
      }
    }
    if let arg0Namespace, !message.firstArgumentIsName(inNamespace: arg0Namespace) { return false }
    return true
  }

  /// Whether the sender field needs resolving (a well-known name other than the bus itself).
  var needsSenderResolution: Bool {
    guard let sender else { return false }
    return !sender.hasPrefix(":") && sender != "org.freedesktop.DBus"
  }
}

/// A live subscription to messages matching a rule; the connection keeps it until `cancel()`.
///
/// What every signal reads of it (whether it is active, the owner of its sender name) is kept in
/// private fields, read and written in place only: their accesses are proven exclusive when
/// compiled, with no run-time check (a public or package stored property is checked on every read).
public final class DBusSubscription {
  public let rule: DBusMatchRule
  /// `rule.needsSenderResolution`, kept (asked of every signal).
  private let resolvesSender: Bool
  /// The rule's header fields as C strings.
  private let fields: DBusMatchRule.HeaderFields
  let handler: (DBusMessage) -> Void
  /// Removes it from its bus (and the match rule from the bus daemon).
  private var cancelHandler: ((DBusSubscription) -> Void)?
  /// The unique name owning the rule's well-known sender name, when known.
  var resolvedSender: String? {
    get { resolvedSenderStorage }
    set {
      var value = newValue
      swap(&value, &resolvedSenderStorage)
    }
  }
  private var resolvedSenderStorage: String?
  /// Tracks the owner of a well-known sender name.
  var ownerWatch: DBusSubscription?
  /// Asks the bus for state to start from (GetNameOwner), on subscribing and after reconnecting.
  package var initialQuery: (() -> Void)?
  public var isActive: Bool { active }
  private var active = true
  /// Its place in its table's subscription order.
  let order: UInt64

  init(
    rule: DBusMatchRule, order: UInt64, handler: @escaping (DBusMessage) -> Void,
    cancel: @escaping (DBusSubscription) -> Void
  ) {
    self.rule = rule
    self.order = order
    self.resolvesSender = rule.needsSenderResolution
    self.fields = DBusMatchRule.HeaderFields(rule)
    self.handler = handler
    self.cancelHandler = cancel
  }

  /// Stops delivery and removes the match rule from the bus.
  public func cancel() {
    guard active else { return }
    active = false
    ownerWatch?.cancel()
    ownerWatch = nil
    let handler = cancelHandler
    cancelHandler = nil
    handler?(self)
  }

  /// Whether `message`, sent by `sender`, is for this subscription (the sender first: with a
  /// subscription per player, most are not for the message).
  func matches(_ message: DBusMessage, sender messageSender: String?) -> Bool {
    guard active else { return false }
    if let sender = rule.sender {
      if resolvesSender {
        guard let resolved = resolvedSenderStorage, messageSender == resolved else { return false }
      } else {
        guard messageSender == sender else { return false }
      }
    }
    return rule.matchesIgnoringSender(message, fields: fields)
  }
}

/// The subscriptions of a bus connection and the local delivery of signals to them (a bus daemon
/// sends the union of every rule: each subscription checks its own). Every bus keeps one.
///
/// Subscriptions whose rule names a unique sender (`:1.42`, as the player tracker's per-player
/// rules do) or the bus itself are kept by that sender too: a signal is only checked against its
/// sender's and those of no such sender, not against every player's.
///
/// Its lists are changed out of place (taken out with a swap, changed, put back), so that no
/// access to them runs other code (a release) within it: every signal reads them with no run-time
/// exclusivity check.
package final class DBusSubscriptionTable {
  /// Every subscription, in subscription order.
  package private(set) var subscriptions: [DBusSubscription] = []
  /// The subscriptions whose rule has no sender or a well-known one, in subscription order.
  private var general: [DBusSubscription] = []
  /// The other subscriptions by their rule's sender, in subscription order.
  private var bySender: [String: [DBusSubscription]] = [:]
  private var nextOrder: UInt64 = 0

  package init() {}

  /// Adds a subscription for `rule` on `bus`; `removed` runs when it is cancelled. A well-known
  /// sender name is followed to its owner.
  package func add(
    _ rule: DBusMatchRule, on bus: any MessageBus, handler: @escaping (DBusMessage) -> Void,
    removed: @escaping (DBusSubscription) -> Void
  ) -> DBusSubscription {
    nextOrder += 1
    let subscription = DBusSubscription(rule: rule, order: nextOrder, handler: handler) {
      [weak self] subscription in
      self?.remove(subscription)
      removed(subscription)
    }
    var subscriptions = takeSubscriptions()
    subscriptions.append(subscription)
    swap(&subscriptions, &self.subscriptions)
    if let sender = Self.uniqueSender(of: rule) {
      var bySender = takeBySender()
      bySender[sender, default: []].append(subscription)
      swap(&bySender, &self.bySender)
    } else {
      var general = takeGeneral()
      general.append(subscription)
      swap(&general, &self.general)
    }
    if rule.needsSenderResolution, let name = rule.sender {
      subscription.ownerWatch = bus.watchNameOwner(name) { [weak subscription] owner in
        subscription?.resolvedSender = owner
      }
    }
    return subscription
  }

  /// The rule's sender when messages carry it as is, a unique name or the bus itself (the key of
  /// `bySender`); nil for none, or a well-known name followed to its owner.
  private static func uniqueSender(of rule: DBusMatchRule) -> String? {
    guard let sender = rule.sender, !rule.needsSenderResolution else { return nil }
    return sender
  }

  private func remove(_ subscription: DBusSubscription) {
    var subscriptions = takeSubscriptions()
    subscriptions.removeAll { $0 === subscription }
    swap(&subscriptions, &self.subscriptions)
    if let sender = Self.uniqueSender(of: subscription.rule) {
      var bySender = takeBySender()
      bySender[sender]?.removeAll { $0 === subscription }
      if bySender[sender]?.isEmpty == true { bySender[sender] = nil }
      swap(&bySender, &self.bySender)
    } else {
      var general = takeGeneral()
      general.removeAll { $0 === subscription }
      swap(&general, &self.general)
    }
  }

  // Each takes a list out, leaving an empty one: changed, the list is swapped back in its place,
  // so that nothing is released within an access to the table's lists.
  private func takeSubscriptions() -> [DBusSubscription] {
    var taken: [DBusSubscription] = []
    swap(&taken, &subscriptions)
    return taken
  }

  private func takeGeneral() -> [DBusSubscription] {
    var taken: [DBusSubscription] = []
    swap(&taken, &general)
    return taken
  }

  private func takeBySender() -> [String: [DBusSubscription]] {
    var taken: [String: [DBusSubscription]] = [:]
    swap(&taken, &bySender)
    return taken
  }

  /// Runs the handler of every subscription matching `message`, in subscription order.
  package func deliver(_ message: DBusMessage) {
    let sender = message.sender
    // Copies of the lists (handlers may subscribe or cancel meanwhile: those cancelled are
    // inactive, and so skipped).
    let general = self.general
    guard let sender, let own = bySender[sender], !own.isEmpty else {
      for subscription in general where subscription.matches(message, sender: sender) {
        subscription.handler(message)
      }
      return
    }
    // Both lists are in subscription order: merged.
    var next = general.startIndex
    var nextOwn = own.startIndex
    while next < general.endIndex || nextOwn < own.endIndex {
      let subscription: DBusSubscription
      if nextOwn == own.endIndex || (next < general.endIndex && general[next].order < own[nextOwn].order) {
        subscription = general[next]
        next += 1
      } else {
        subscription = own[nextOwn]
        nextOwn += 1
      }
      if subscription.matches(message, sender: sender) { subscription.handler(message) }
    }
  }

  /// The bus went away: owners of well-known names are unknown until asked again.
  package func forgetResolvedSenders() {
    for subscription in subscriptions { subscription.resolvedSender = nil }
  }

  /// Cancels every subscription (the connection is closed for good).
  package func cancelAll() {
    let active = takeSubscriptions()
    _ = takeGeneral()
    _ = takeBySender()
    for subscription in active { subscription.cancel() }
  }
}

/// A change of owner of a bus name (`NameOwnerChanged`); nil owners mean "none".
public struct DBusNameOwnerChange: Sendable, Equatable {
  public var name: String
  public var oldOwner: String?
  public var newOwner: String?

  public init(name: String, oldOwner: String?, newOwner: String?) {
    self.name = name
    self.oldOwner = oldOwner
    self.newOwner = newOwner
  }
}

extension MessageBus {
  /// Subscribes to signals: `bus.onSignal(interface: "org.x.Y", member: "Changed") { m in … }`.
  @discardableResult
  public func onSignal(
    sender: String? = nil, path: String? = nil, interface: String? = nil, member: String? = nil,
    handler: @escaping (DBusMessage) -> Void
  ) -> DBusSubscription {
    subscribe(
      DBusMatchRule(kind: .signal, sender: sender, interface: interface, member: member, path: path),
      handler: handler)
  }

  /// Follows `NameOwnerChanged` for one `name`, or for every name in `namespace` (the name itself
  /// and names below it), or for all names when both are nil.
  @discardableResult
  public func onNameOwnerChanged(
    name: String? = nil, namespace: String? = nil, handler: @escaping (DBusNameOwnerChange) -> Void
  ) -> DBusSubscription {
    var rule = DBusMatchRule(
      kind: .signal, sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus",
      member: "NameOwnerChanged", path: "/org/freedesktop/DBus", arg0Namespace: namespace)
    if let name { rule.arguments[0] = name }
    return subscribe(rule) { message in
      let values = message.arguments
      guard values.count == 3, let name = values[0].string, let old = values[1].string,
        let new = values[2].string
      else { return }
      handler(
        DBusNameOwnerChange(name: name, oldOwner: old.isEmpty ? nil : old, newOwner: new.isEmpty ? nil : new))
    }
  }

  /// Tracks the owner of `name`: `handler` gets the current owner (GetNameOwner, nil when none)
  /// and then each change; again after a reconnection.
  @discardableResult
  public func watchNameOwner(_ name: String, handler: @escaping (String?) -> Void) -> DBusSubscription {
    // A change seen after the query was sent is newer than the query's answer.
    let version = OwnerChangeCount()
    let subscription = onNameOwnerChanged(name: name) { change in
      version.value += 1
      handler(change.newOwner)
    }
    subscription.initialQuery = { [weak self, weak subscription] in
      let asked = version.value
      self?.getNameOwner(name) { result in
        guard subscription?.isActive == true, version.value == asked else { return }
        handler(try? result.get())
      }
    }
    if isConnected { subscription.initialQuery?() }
    return subscription
  }
}

/// Counts the owner changes seen by a `watchNameOwner`.
private final class OwnerChangeCount {
  var value = 0
}
