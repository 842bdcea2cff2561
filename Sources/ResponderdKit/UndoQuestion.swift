import DBus
import EventTime
import Logging

#if canImport(Glibc)
  import Glibc
#endif

/// Which question the shake asks.
public enum UndoQuestionKind: String, Sendable, Equatable {
  /// "Undo Typing": Cancel / Undo (Ctrl+Z).
  case undo
  /// "Redo Typing", after an undo: Cancel / Redo (Ctrl+Shift+Z).
  case redo

  /// The question's title.
  public var summary: String { self == .undo ? "Undo Typing" : "Redo Typing" }
  /// Its button that acts.
  public var actionLabel: String { self == .undo ? "Undo" : "Redo" }
  /// The action's key in the notification.
  public var actionKey: String { rawValue }
}

/// How the user answered.
public enum UndoAnswer: Equatable, Sendable {
  /// Undo (or Redo) pressed.
  case accepted
  /// Cancel pressed.
  case cancelled
  /// Closed without a choice (dismissed, or closed by the server).
  case dismissed
  /// The question could not be shown.
  case failed(String)
}

/// Shows the shake-to-undo question and says how it was answered.
public protocol UndoQuestionPresenter: AnyObject {
  /// nil when it can ask now; else why not.
  var unavailableReason: String? { get }
  /// Who shows the question ("org.freedesktop.Notifications (gnome-shell 43.9)").
  var presenterDescription: String { get }
  /// Calls `observer` after each change of `unavailableReason`.
  func addObserver(_ observer: @escaping () -> Void)
  /// Shows the question; `answer` runs once, later (never after `close()`).
  func ask(_ kind: UndoQuestionKind, answer: @escaping (UndoAnswer) -> Void)
  /// Closes the open question (it expired); its `answer` is not called.
  func close()
}

/// The question as a notification with actions (`org.freedesktop.Notifications`): GNOME Shell,
/// Plasma's plasmashell and Phosh show it as a banner with buttons that leaves the keyboard focus
/// where it was, and its buttons are on the accessibility bus for screen readers.
public final class NotificationQuestion: UndoQuestionPresenter {
  public static let name = "org.freedesktop.Notifications"
  static let path = "/org/freedesktop/Notifications"
  static let interface = "org.freedesktop.Notifications"

  public private(set) var unavailableReason: String? =
    "no notification server owns org.freedesktop.Notifications"
  public private(set) var presenterDescription = "org.freedesktop.Notifications"
  /// How long the server may take to answer.
  public var deadline: Seconds = 2
  /// The notification's expiry, asked of the server (the handler closes it itself too).
  public var expiry: Seconds = 8
  private let bus: any MessageBus
  private var owner: String?
  private var subscriptions: [DBusSubscription] = []
  private var observers: [() -> Void] = []
  private let logger: Logger
  /// The open question: its notification id (0 until Notify answers) and its answer.
  private var open: (id: UInt32, kind: UndoQuestionKind, answer: (UndoAnswer) -> Void)?
  /// Counts questions, so that a late Notify reply of a closed one closes its notification.
  private var asked = 0

  /// Follows the notification server on `bus` (the session bus); only one running as `uid`.
  public init(bus: any MessageBus, uid: UInt32 = getuid(), logger: Logger = Logger(label: "responderd")) {
    self.bus = bus
    self.logger = logger
    subscriptions.append(
      bus.watchNameOwner(
        Self.name, runningAs: uid,
        refused: { [logger] owner, ownerUID in
          logger.notice(
            "undo: \(owner) owns \(Self.name) as uid \(ownerUID.map(String.init) ?? "?"): no question is shown there"
          )
        }
      ) { [weak self] owner in self?.ownerChanged(owner) })
    subscriptions.append(
      bus.onSignal(interface: Self.interface, member: "ActionInvoked") { [weak self] message in
        self?.actionInvoked(message)
      })
    subscriptions.append(
      bus.onSignal(interface: Self.interface, member: "NotificationClosed") { [weak self] message in
        self?.closed(message)
      })
  }

  deinit { for subscription in subscriptions { subscription.cancel() } }

  public func addObserver(_ observer: @escaping () -> Void) {
    observers.append(observer)
  }

  private func set(_ reason: String?, description: String) {
    guard reason != unavailableReason || description != presenterDescription else { return }
    unavailableReason = reason
    presenterDescription = description
    for observer in observers { observer() }
  }

  private func ownerChanged(_ owner: String?) {
    self.owner = owner
    if let open {
      self.open = nil
      open.answer(.dismissed)
    }
    guard let owner else {
      return set("no notification server owns \(Self.name)", description: Self.name)
    }
    // A server that shows no buttons cannot ask.
    bus.call(
      destination: owner, path: Self.path, interface: Self.interface, method: "GetCapabilities",
      timeout: deadline
    ) { [weak self] result in
      guard let self, self.owner == owner else { return }
      let capabilities = (try? result.get())?.first?.stringArray ?? []
      self.bus.call(
        destination: owner, path: Self.path, interface: Self.interface, method: "GetServerInformation",
        timeout: self.deadline
      ) { [weak self] info in
        guard let self, self.owner == owner else { return }
        let values = (try? info.get()) ?? []
        let server =
          values.count >= 3
          ? "\(values[0].string ?? "?") \(values[2].string ?? "")".trimmingSpaces : owner
        let description = "\(Self.name) (\(server))"
        if capabilities.contains("actions") {
          self.set(nil, description: description)
        } else {
          self.set(
            "the notification server (\(server)) shows no buttons (no \"actions\" capability)",
            description: description)
        }
      }
    }
  }

  public func ask(_ kind: UndoQuestionKind, answer: @escaping (UndoAnswer) -> Void) {
    guard let owner, unavailableReason == nil else {
      let reason = unavailableReason ?? "no notification server"
      bus.scheduler.schedule(after: 0) { answer(.failed(reason)) }
      return
    }
    asked += 1
    let number = asked
    open = (0, kind, answer)
    let hints: [String: DBusValue] = [
      // Shown until answered or closed (critical urgency: the banner does not slide away), kept
      // out of the history (transient).
      "urgency": .byte(2), "transient": .bool(true), "category": .string("x-responderd.undo"),
    ]
    bus.call(
      destination: owner, path: Self.path, interface: Self.interface, method: "Notify",
      arguments: [
        .string("Shake to Undo"), .uint32(0), .string("edit-undo-symbolic"), .string(kind.summary),
        .string(""),
        ["cancel", "Cancel", kind.actionKey, kind.actionLabel].dbusValue, .vardict(hints),
        .int32(Int32(expiry * 1000)),
      ],
      timeout: deadline
    ) { [weak self] result in
      guard let self else { return }
      switch result {
      case .success(let values):
        let id = values.first?.uint32 ?? 0
        guard self.asked == number, self.open != nil else {
          // Closed (expired) before the server answered: close its notification.
          self.closeNotification(id)
          return
        }
        self.open?.id = id
      case .failure(let error):
        guard self.asked == number, let open = self.open else { return }
        self.open = nil
        open.answer(.failed("the notification server did not show it (\(error.message))"))
      }
    }
  }

  public func close() {
    guard let open else { return }
    self.open = nil
    closeNotification(open.id)
  }

  private func closeNotification(_ id: UInt32) {
    guard id != 0, let owner else { return }
    bus.call(
      destination: owner, path: Self.path, interface: Self.interface, method: "CloseNotification",
      arguments: [.uint32(id)], timeout: deadline
    ) { _ in }
  }

  /// `ActionInvoked(u id, s action_key)` from the server.
  private func actionInvoked(_ message: DBusMessage) {
    guard message.sender == owner, let open, open.id != 0, message.arguments.count >= 2,
      message.arguments[0].uint32 == open.id, let key = message.arguments[1].string
    else { return }
    self.open = nil
    open.answer(key == open.kind.actionKey ? .accepted : .cancelled)
    // GNOME Shell leaves a notification whose action was invoked open in its list: close it.
    closeNotification(open.id)
  }

  /// `NotificationClosed(u id, u reason)`: closed without an action.
  private func closed(_ message: DBusMessage) {
    guard message.sender == owner, let open, open.id != 0, message.arguments.first?.uint32 == open.id
    else { return }
    self.open = nil
    open.answer(.dismissed)
  }
}

extension String {
  fileprivate var trimmingSpaces: String {
    String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
  }
}
