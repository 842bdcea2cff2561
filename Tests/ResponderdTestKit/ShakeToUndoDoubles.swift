import AccessibilityWatch
import DBus
import EventTime
import KeySender
import ResponderdKit

#if canImport(Glibc)
  import Glibc
#endif

/// The accessibility bus in memory, for the shake-to-undo tests: the launcher on the session bus
/// (`org.a11y.Bus.GetAddress`), the accessibility bus itself (another `InMemoryBus`) with its
/// registry, and applications publishing accessibles (role and states) and focus signals as GTK
/// and Qt do. `connect` is what `AccessibilityWatch` connects with.
///
/// ```swift
/// let accessibility = try InMemoryAccessibility(sessionBus: bus)
/// let editor = try accessibility.application()
/// try editor.focus(editor.add(role: AccessibleRole.text, states: [AccessibleState.editable]))
/// ```
public final class InMemoryAccessibility {
  /// The session bus the launcher is on.
  public let sessionBus: InMemoryBus
  /// The accessibility bus now (a new one each time it is launched).
  public private(set) var bus: InMemoryBus
  /// The launcher's connection to the session bus (nil while it is gone).
  public private(set) var launcher: InMemoryBusConnection?
  /// The registry on the accessibility bus.
  public private(set) var registry: InMemoryBusConnection?
  /// The events listeners registered with the registry, in order.
  public private(set) var registeredEvents: [String] = []
  /// The connections made to the accessibility bus (through `connect`), the newest last.
  public private(set) var listeners: [InMemoryBusConnection] = []
  /// The applications on the bus now (the registry's desktop lists them).
  private var applications: [Application] = []
  private var launches = 0

  /// The launcher and the accessibility bus, up.
  public init(sessionBus: InMemoryBus) throws {
    self.sessionBus = sessionBus
    bus = InMemoryBus(scheduler: sessionBus.scheduler)
    try launch()
  }

  /// The address the launcher gives now.
  public var address: String { "unix:path=/run/user/1000/at-spi/bus_\(launches)" }

  /// Starts the launcher and a new accessibility bus (after `quit()`).
  public func launch() throws {
    launches += 1
    if launches > 1 { bus = InMemoryBus(scheduler: sessionBus.scheduler) }
    let registry = bus.connect()
    try registry.export(
      AccessibilityNames.registryInterface, at: AccessibilityNames.registryPath,
      DBusMethod("RegisterEvent", in: "sass") { [weak self] call in
        self?.registeredEvents.append(call.arguments[0].string ?? "")
        return []
      })
    // The desktop: the applications' roots, as at-spi2-registryd lists them.
    try registry.export(
      AccessibilityNames.accessible, at: AccessibilityNames.rootPath,
      DBusMethod("GetChildren", out: "a(so)") { [weak self] _ in
        let roots = (self?.applications ?? []).filter { $0.connection.uniqueName != nil }.map {
          DBusValue.structure([.string($0.name), .objectPath(AccessibilityNames.rootPath)])
        }
        return [.array(elementSignature: "(so)", roots)]
      })
    registry.requestName(AccessibilityNames.registry)
    self.registry = registry
    let launcher = sessionBus.connect()
    try launcher.export(
      AccessibilityNames.launcherInterface, at: AccessibilityNames.launcherPath,
      DBusMethod("GetAddress", out: "s") { [weak self] _ in [.string(self?.address ?? "")] })
    launcher.requestName(AccessibilityNames.launcher)
    self.launcher = launcher
  }

  /// The launcher and its accessibility bus go away (the session's accessibility is switched
  /// off, or the launcher crashed): every connection to that bus is closed.
  public func quit() {
    launcher?.leave()
    launcher = nil
    registry?.leave()
    registry = nil
    for listener in listeners { listener.leave() }
  }

  /// A connection to the accessibility bus at `address`, as `AccessibilityWatch` makes one;
  /// refused (as a vanished socket is) when it is not the bus running now.
  public func connect(_ address: String) throws -> (bus: any MessageBus, close: () -> Void) {
    guard launcher != nil, address == self.address else {
      throw DBusError(
        DBusError.Name.noServer, "Failed to connect to socket \(address): No such file or directory")
    }
    let connection = bus.connect()
    listeners.append(connection)
    return (connection, { connection.leave() })
  }

  /// A new application on the accessibility bus.
  public func application() -> Application {
    let application = Application(connection: bus.connect())
    applications.append(application)
    return application
  }

  /// An application publishing accessibles, as a toolkit's accessibility bridge does.
  public final class Application {
    public let connection: InMemoryBusConnection
    /// Its accessibles' role and states, by path.
    public private(set) var accessibles: [String: (role: UInt32, states: Set<UInt32>)] = [:]
    /// While true, it never answers (a hung application, stopped as with SIGSTOP): calls wait
    /// for their deadline.
    public var hangs: Bool {
      get { connection.isStopped }
      set { connection.isStopped = newValue }
    }
    /// How many times its role or states were read.
    public private(set) var reads = 0
    /// Each accessible's children, by path (the root's: the accessibles added without a parent).
    public private(set) var children: [String: [String]] = [:]
    private var count = 0

    init(connection: InMemoryBusConnection) {
      self.connection = connection
      try? exportChildren(AccessibilityNames.rootPath, others: [])
    }

    /// Exports `path`'s `GetChildren` (with `others`, its other methods).
    private func exportChildren(_ path: String, others: [DBusMethod]) throws {
      try connection.export(
        path: path,
        interfaces: [
          DBusInterface(
            AccessibilityNames.accessible,
            methods: others + [
              .replyLater("GetChildren", out: "a(so)") { [weak self] call in
                guard let self else { return }
                let list = (self.children[path] ?? []).map {
                  DBusValue.structure([.string(self.name), .objectPath($0)])
                }
                call.reply([.array(elementSignature: "(so)", list)])
              }
            ])
        ])
    }

    /// Its bus name.
    public var name: String { connection.uniqueName ?? "" }

    /// Publishes an accessible with `role` and `states`, a child of `parent` (nil: a window, a
    /// child of the application's root); returns its path.
    @discardableResult
    public func add(role: UInt32, states: Set<UInt32>, parent: String? = nil) throws -> String {
      count += 1
      let path = "/org/a11y/atspi/accessible/\(count)"
      accessibles[path] = (role, states)
      children[parent ?? AccessibilityNames.rootPath, default: []].append(path)
      try exportChildren(
        path,
        others: [
          .replyLater("GetRole", out: "u") { [weak self] call in
            guard let self else { return }
            self.reads += 1
            call.reply([.uint32(self.accessibles[path]?.role ?? 0)])
          },
          .replyLater("GetState", out: "au") { [weak self] call in
            guard let self else { return }
            self.reads += 1
            let words = FocusedWidget.words(of: self.accessibles[path]?.states ?? [])
            call.reply([.array(elementSignature: "u", words.map { .uint32($0) })])
          },
        ])
      return path
    }

    /// Changes an accessible's states.
    public func setStates(_ path: String, _ states: Set<UInt32>) {
      accessibles[path]?.states = states
    }

    /// `path` takes the focus: its FOCUSED state is set and announced, as GTK does (the widget
    /// that had it announces its loss first, through `blur`).
    public func focus(_ path: String) throws {
      accessibles[path]?.states.insert(AccessibleState.focused)
      try stateChanged(path, true)
    }

    /// `path` loses the focus.
    public func blur(_ path: String) throws {
      accessibles[path]?.states.remove(AccessibleState.focused)
      try stateChanged(path, false)
    }

    /// The window at `path` becomes the active one (StateChanged "active", as GTK and Qt say).
    public func activate(_ path: String) throws {
      try stateChanged(path, true, state: "active")
    }

    private func stateChanged(_ path: String, _ on: Bool, state: String = "focused") throws {
      try connection.emitSignal(
        path: path, interface: AccessibilityNames.objectEvents, name: "StateChanged",
        arguments: [.string(state), .int32(on ? 1 : 0), .int32(0), .variant(.int32(0)), .vardict([:])])
    }
  }
}

/// A notification server on the in-memory bus (`org.freedesktop.Notifications`), as GNOME Shell,
/// plasmashell and phosh serve it: it records each notification and the test presses its buttons.
public final class InMemoryNotificationServer {
  /// One notification shown.
  public struct Notification: Equatable, Sendable {
    public var id: UInt32
    public var summary: String
    /// Key and label pairs, in order.
    public var actions: [String]
    public var expireTimeout: Int32
    /// Whether it is still shown.
    public var isOpen: Bool
  }

  public let connection: InMemoryBusConnection
  /// Every notification, in order.
  public private(set) var notifications: [Notification] = []
  /// Its capabilities (`actions` among them unless a test takes it away).
  public var capabilities = ["actions", "body", "persistence"]
  /// Who it is (`GetServerInformation`).
  public var serverName = "gnome-shell"
  private var lastID: UInt32 = 0

  /// The server, on `bus`, owning the name at once.
  public init(bus: InMemoryBus) throws {
    connection = bus.connect()
    try connection.export(
      path: "/org/freedesktop/Notifications",
      interfaces: [
        DBusInterface(
          NotificationQuestion.name,
          methods: [
            DBusMethod("GetCapabilities", out: "as") { [weak self] _ in [(self?.capabilities ?? []).dbusValue]
            },
            DBusMethod("GetServerInformation", out: "ssss") { [weak self] _ in
              [.string(self?.serverName ?? ""), "GNOME", "43.9", "1.2"]
            },
            DBusMethod("Notify", in: "susssasa{sv}i", out: "u") { [weak self] call in
              guard let self else { return [] }
              self.lastID += 1
              let arguments = call.arguments
              self.notifications.append(
                Notification(
                  id: self.lastID, summary: arguments[3].string ?? "",
                  actions: arguments[5].stringArray ?? [],
                  expireTimeout: arguments[7].int32 ?? 0, isOpen: true))
              return [.uint32(self.lastID)]
            },
            DBusMethod("CloseNotification", in: "u") { [weak self] call in
              try self?.close(call.arguments[0].uint32 ?? 0, reason: 3)
              return []
            },
          ])
      ])
    connection.requestName(NotificationQuestion.name)
  }

  /// The notifications shown now.
  public var open: [Notification] { notifications.filter(\.isOpen) }

  /// The user presses the button `action` of the last notification shown.
  public func press(_ action: String) throws {
    guard let last = notifications.last else { return }
    try connection.emitSignal(
      path: "/org/freedesktop/Notifications", interface: NotificationQuestion.name, name: "ActionInvoked",
      arguments: [.uint32(last.id), .string(action)])
  }

  /// The user dismisses the last notification.
  public func dismiss() throws {
    guard let last = notifications.last else { return }
    try close(last.id, reason: 2)
  }

  private func close(_ id: UInt32, reason: UInt32) throws {
    guard let index = notifications.firstIndex(where: { $0.id == id }), notifications[index].isOpen else {
      return
    }
    notifications[index].isOpen = false
    try connection.emitSignal(
      path: "/org/freedesktop/Notifications", interface: NotificationQuestion.name,
      name: "NotificationClosed",
      arguments: [.uint32(id), .uint32(reason)])
  }
}

/// A key sender that records the chords it was asked to send, ready or not as the test says, and
/// answering after `latency` on the scheduler.
public final class FakeKeySender: EditKeySender {
  /// The chords sent, in order.
  public private(set) var sent: [EditChord] = []
  /// The error every send answers, when set (the compositor refused).
  public var refusal: KeySendError?
  public var state: KeySenderState {
    didSet {
      guard state != oldValue else { return }
      for observer in observers { observer(state) }
    }
  }
  private let scheduler: Scheduler
  private var observers: [(KeySenderState) -> Void] = []

  public init(scheduler: Scheduler, state: KeySenderState = .ready(api: "fake compositor API")) {
    self.scheduler = scheduler
    self.state = state
  }

  public func addObserver(_ observer: @escaping (KeySenderState) -> Void) {
    observers.append(observer)
  }

  public func send(_ chord: EditChord, _ done: @escaping (Result<Void, KeySendError>) -> Void) {
    let outcome: Result<Void, KeySendError>
    if let refusal {
      outcome = .failure(refusal)
    } else if case .unavailable(let reason) = state {
      outcome = .failure(KeySendError(reason))
    } else {
      sent.append(chord)
      outcome = .success(())
    }
    scheduler.schedule(after: 0) { done(outcome) }
  }
}

extension InMemoryBusConnection {
  /// Exports one interface at `path` with these methods only.
  fileprivate func export(_ interface: String, at path: String, _ methods: DBusMethod...) throws {
    try export(path: path, interfaces: [DBusInterface(interface, methods: methods)])
  }
}
