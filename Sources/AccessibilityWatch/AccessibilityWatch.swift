import DBus
import EventTime
import Logging

#if canImport(Glibc)
  import Glibc
#endif

/// The names of the accessibility bus (AT-SPI) the watch uses, and no others.
public enum AccessibilityNames {
  /// The launcher of the accessibility bus, on the session bus (at-spi-bus-launcher).
  public static let launcher = "org.a11y.Bus"
  public static let launcherPath = "/org/a11y/bus"
  public static let launcherInterface = "org.a11y.Bus"
  /// The registry on the accessibility bus (at-spi2-registryd): applications emit the events a
  /// listener registered there, and only those.
  public static let registry = "org.a11y.atspi.Registry"
  public static let registryPath = "/org/a11y/atspi/registry"
  public static let registryInterface = "org.a11y.atspi.Registry"
  /// The desktop: the registry's root accessible, whose children are the applications' roots.
  public static let rootPath = "/org/a11y/atspi/accessible/root"
  /// The signals of an accessible's state changes (`StateChanged`, first argument the state).
  public static let objectEvents = "org.a11y.atspi.Event.Object"
  /// An accessible's role and states.
  public static let accessible = "org.a11y.atspi.Accessible"
  /// The events the watch registers for: a widget's focus, a window's activation.
  public static let focusEvent = "object:state-changed:focused"
  public static let activeEvent = "object:state-changed:active"
}

/// AT-SPI's role numbers (`AtspiRole`) the shake-to-undo gates know.
public enum AccessibleRole {
  public static let passwordText: UInt32 = 40
  public static let terminal: UInt32 = 60
  public static let text: UInt32 = 61
  public static let paragraph: UInt32 = 73
  public static let entry: UInt32 = 79
  public static let documentFrame: UInt32 = 82
  public static let section: UInt32 = 85
  public static let documentText: UInt32 = 94
  public static let documentWeb: UInt32 = 95

  /// The role's name as AT-SPI spells it (`GetRoleName`), "role N" for the others.
  public static func name(_ role: UInt32) -> String { names[role] ?? "role \(role)" }

  private static let names: [UInt32: String] = [
    passwordText: "password text", terminal: "terminal", text: "text", paragraph: "paragraph",
    entry: "entry", documentFrame: "document frame", section: "section", documentText: "document text",
    documentWeb: "document web",
  ]

  /// The roles whose editable accessibles hold text a user types: GTK's and Qt's text views and
  /// entries, LibreOffice's paragraphs and documents, a web page's editable regions.
  public static let textRoles: Set<UInt32> = [
    text, paragraph, entry, documentFrame, section, documentText, documentWeb,
  ]
}

/// AT-SPI's state numbers (`AtspiStateType`): bits of `GetState`'s two 32-bit words.
public enum AccessibleState {
  public static let active: UInt32 = 1
  public static let editable: UInt32 = 7
  public static let focused: UInt32 = 12
  public static let showing: UInt32 = 25
  public static let visible: UInt32 = 30
  public static let readOnly: UInt32 = 43

  /// The state's name, "state N" for the others.
  public static func name(_ state: UInt32) -> String { names[state] ?? "state \(state)" }

  private static let names: [UInt32: String] = [
    active: "ACTIVE", editable: "EDITABLE", focused: "FOCUSED", showing: "SHOWING", visible: "VISIBLE",
    readOnly: "READ_ONLY",
  ]
}

/// An accessible on the accessibility bus: its application's bus name and its object path.
public struct AccessibleReference: Hashable, Sendable, CustomStringConvertible {
  public var application: String
  public var path: String

  public init(application: String, path: String) {
    self.application = application
    self.path = path
  }

  public var description: String { "\(application) \(path)" }
}

/// The focused widget as the watch read it: its role and states, nothing else.
public struct FocusedWidget: Equatable, Sendable, CustomStringConvertible {
  public var reference: AccessibleReference
  /// AT-SPI's role number (`AccessibleRole`).
  public var role: UInt32
  /// The state numbers set (`AccessibleState`).
  public var states: Set<UInt32>

  public init(reference: AccessibleReference, role: UInt32, states: Set<UInt32>) {
    self.reference = reference
    self.role = role
    self.states = states
  }

  /// Reads `GetState`'s two words (bit n of word n/32).
  public static func states(fromWords words: [UInt32]) -> Set<UInt32> {
    var states = Set<UInt32>()
    for (index, word) in words.prefix(2).enumerated() {
      for bit in 0..<32 where word & (1 << UInt32(bit)) != 0 { states.insert(UInt32(index * 32 + bit)) }
    }
    return states
  }

  /// The two words `GetState` answers for `states`.
  public static func words(of states: Set<UInt32>) -> [UInt32] {
    var words: [UInt32] = [0, 0]
    for state in states where state < 64 { words[Int(state / 32)] |= 1 << (state % 32) }
    return words
  }

  public var isEditable: Bool { states.contains(AccessibleState.editable) }
  public var isFocused: Bool { states.contains(AccessibleState.focused) }

  /// "text, EDITABLE FOCUSED" (the states the gates read).
  public var description: String {
    let known = [AccessibleState.editable, AccessibleState.focused, AccessibleState.readOnly]
    let names = known.filter(states.contains).map(AccessibleState.name)
    return "\(AccessibleRole.name(role))\(names.isEmpty ? "" : ", " + names.joined(separator: " "))"
  }
}

/// Why the focused widget could not be read.
public enum FocusReadError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The watch is not following an accessibility bus (with why).
  case notFollowing(String)
  /// No focus event was seen since the watch started (or the focused widget lost the focus).
  case noFocus
  /// The application did not answer within the deadline.
  case noAnswer(application: String, seconds: Seconds)
  /// The application answered with an error or something else than a role and states.
  case failed(String)

  public var description: String {
    switch self {
    case .notFollowing(let why): "the accessibility bus is not followed (\(why))"
    case .noFocus: "no focused widget is known on the accessibility bus"
    case .noAnswer(let application, let seconds):
      "the focused application (\(application)) did not say its role and state within \(Int((seconds * 1000).rounded())) ms"
    case .failed(let message): "the focused widget's role and state could not be read (\(message))"
    }
  }
}

/// What has the focus, from the accessibility bus: what the shake-to-undo handler asks. The
/// watch follows the focus through signals; the role and states are read when asked.
public protocol AccessibilityFocusSource: AnyObject {
  /// Whether it follows an accessibility bus now.
  var isFollowing: Bool { get }
  /// One line for `responderctl status`: following, waiting for the bus, stopped.
  var statusText: String { get }
  /// The focused accessible, as the last focus signals left it (nil: none known).
  var focused: AccessibleReference? { get }
  /// Starts following the focus (the bus may come later).
  func start()
  /// Stops following it and closes the accessibility bus connection.
  func stop()
  /// Reads the focused accessible's role and states within `deadline` (applications that do not
  /// answer hold it that long as a whole; a window searched for its focus, longer): `done` runs
  /// once, later, on the loop.
  func readFocus(deadline: Seconds, _ done: @escaping (Result<FocusedWidget, FocusReadError>) -> Void)
}

/// Follows the focus on the accessibility bus (AT-SPI), the bus screen readers use.
///
/// The bus's address comes from `org.a11y.Bus.GetAddress` on the session bus, asked each time the
/// launcher appears; the watch registers for `object:state-changed:focused` with the registry
/// (applications emit no event nobody registered for) and follows `StateChanged` "focused"
/// through a match rule: nothing is polled. When the accessibility bus or its launcher goes away,
/// the focus is forgotten and the watch waits for the launcher to appear again.
///
/// When asked, the window whose state says ACTIVE is looked up too: the focus is its
/// application's. One that announced no focus (GTK 4.8 says nothing for a window that opens with
/// its text focused) has that window searched for its deepest FOCUSED descendant, entering only
/// VISIBLE or SHOWING accessibles.
///
/// It reads nothing but accessibles' roles (`GetRole`), states (`GetState`) and, for that search,
/// children (`GetChildren`): never a name or a text. Each call has a deadline, so that an
/// application that never answers stalls nothing.
public final class AccessibilityWatch: AccessibilityFocusSource {
  /// A connection to an accessibility bus at an address, and how to close it.
  public typealias Connect = (_ address: String) throws -> (bus: any MessageBus, close: () -> Void)

  /// The newest accessible that said it took the focus.
  public var focused: AccessibleReference? { applicationOrder.first.flatMap { stacks[$0]?.last } }
  /// Per application, the accessibles that said they took the focus and not that they lost it,
  /// oldest first (Qt says so for the focus widget's ancestors too).
  private var stacks: [String: [AccessibleReference]] = [:]
  /// The applications with such accessibles: the one whose window was activated last first, then
  /// the others, the latest to announce a focus first. (GNOME Shell's notification buttons say
  /// they take the focus when tapped, while the keyboard focus stays in the application's window.)
  private var applicationOrder: [String] {
    let byRecency = recency.reversed().filter { stacks[$0]?.isEmpty == false }
    guard let activeApplication, stacks[activeApplication]?.isEmpty == false else { return byRecency }
    return [activeApplication] + byRecency.filter { $0 != activeApplication }
  }
  /// The applications, the latest to announce a focus last.
  private var recency: [String] = []
  /// The application whose window said it became active last (StateChanged "active").
  private var activeApplication: String? { activeWindow?.application }
  /// The window that said it became active last.
  private var activeWindow: AccessibleReference?
  public private(set) var statusText = "not started"
  public var isFollowing: Bool { link != nil }

  private let sessionBus: any MessageBus
  private let connect: Connect
  private let uid: UInt32
  private var logger: Logger
  private var launcherWatch: DBusSubscription?
  private var launcherOwner: String?
  private var addressQuery: DBusPendingCall?
  private var link: Link?
  private var started = false

  /// One accessibility bus connection and what was subscribed on it.
  private final class Link {
    let bus: any MessageBus
    let close: () -> Void
    var subscriptions: [DBusSubscription] = []
    init(bus: any MessageBus, close: @escaping () -> Void) {
      self.bus = bus
      self.close = close
    }
  }

  /// A watch that finds the accessibility bus through `sessionBus` and connects with `connect`;
  /// only a launcher running as `uid` (the service's user) is believed.
  public init(
    sessionBus: any MessageBus, uid: UInt32 = getuid(), logger: Logger = Logger(label: "responderd"),
    connect: @escaping Connect
  ) {
    self.sessionBus = sessionBus
    self.uid = uid
    self.logger = logger
    self.connect = connect
  }

  public func start() {
    guard !started else { return }
    started = true
    statusText = "waiting for the accessibility bus (org.a11y.Bus on the session bus)"
    launcherWatch = sessionBus.watchNameOwner(
      AccessibilityNames.launcher, runningAs: uid,
      refused: { [weak self] owner, ownerUID in
        self?.logger.notice(
          "undo: \(owner) owns org.a11y.Bus as uid \(ownerUID.map(String.init) ?? "?"), not as uid \(self?.uid ?? 0): not followed"
        )
      }
    ) { [weak self] owner in self?.launcherChanged(owner) }
  }

  public func stop() {
    guard started else { return }
    started = false
    launcherWatch?.cancel()
    launcherWatch = nil
    launcherOwner = nil
    drop(reason: "stopped")
    statusText = "not started"
  }

  private func launcherChanged(_ owner: String?) {
    guard started, owner != launcherOwner else { return }
    launcherOwner = owner
    drop(reason: owner == nil ? "the accessibility bus launcher left" : "the launcher was replaced")
    guard let owner else {
      statusText = "waiting for the accessibility bus (org.a11y.Bus is not on the session bus)"
      return
    }
    askAddress(of: owner)
  }

  private func askAddress(of owner: String) {
    addressQuery?.cancel()
    addressQuery = sessionBus.call(
      destination: owner, path: AccessibilityNames.launcherPath,
      interface: AccessibilityNames.launcherInterface,
      method: "GetAddress", timeout: 2
    ) { [weak self] result in
      guard let self, self.started, self.launcherOwner == owner else { return }
      self.addressQuery = nil
      switch result {
      case .success(let values):
        guard let address = values.first?.string, !address.isEmpty else {
          self.statusText = "org.a11y.Bus gave no address"
          return
        }
        self.open(address)
      case .failure(let error):
        self.statusText = "org.a11y.Bus did not give its address (\(error.message))"
        self.logger.notice("undo: \(self.statusText)")
      }
    }
  }

  private func open(_ address: String) {
    let made: (bus: any MessageBus, close: () -> Void)
    do {
      made = try connect(address)
    } catch {
      statusText = "cannot connect to the accessibility bus at \(address) (\(error))"
      logger.notice("undo: \(statusText)")
      return
    }
    let link = Link(bus: made.bus, close: made.close)
    self.link = link
    let bus = made.bus
    // The focus, and the windows activated (which application has the keyboard focus).
    for state in ["focused", "active"] {
      var rule = DBusMatchRule(
        kind: .signal, interface: AccessibilityNames.objectEvents, member: "StateChanged")
      rule.arguments[0] = state
      link.subscriptions.append(
        bus.subscribe(rule) { [weak self] message in self?.stateChanged(message) })
    }
    // An application that leaves takes its focus with it.
    link.subscriptions.append(
      bus.onNameOwnerChanged { [weak self] change in
        guard let self, change.newOwner == nil else { return }
        self.forget(change.name)
      })
    bus.addObserver { [weak self, weak link] event in
      guard let self, let link, self.link === link else { return }
      switch event {
      // `link.bus`, not `bus`: the bus keeps this observer, which must not keep the bus.
      case .connected: self.register(on: link.bus)
      case .disconnected(let error):
        self.drop(reason: "the accessibility bus went away (\(error.message))")
        self.statusText = "the accessibility bus went away; waiting for it to come back"
        // The launcher may have started a new bus: ask it again (once; else wait for its name).
        if let owner = self.launcherOwner { self.askAddress(of: owner) }
      default: break
      }
    }
    if bus.isConnected { register(on: bus) }
    statusText = "following the focus on the accessibility bus"
    logger.info("undo: following the focus on the accessibility bus")
  }

  /// Asks the registry for the focus events (applications emit only registered events).
  private func register(on bus: any MessageBus) {
    for event in [AccessibilityNames.focusEvent, AccessibilityNames.activeEvent] {
      register(event, on: bus)
    }
  }

  private func register(_ event: String, on bus: any MessageBus) {
    bus.call(
      destination: AccessibilityNames.registry, path: AccessibilityNames.registryPath,
      interface: AccessibilityNames.registryInterface, method: "RegisterEvent",
      arguments: [.string(event), [String]().dbusValue, .string("")], timeout: 2
    ) { [weak self] result in
      if case .failure(let error) = result {
        self?.logger.notice(
          "undo: the accessibility registry did not take the focus event (\(error.message)); toolkits that emit it anyway are followed"
        )
      }
    }
  }

  private func drop(reason: String) {
    addressQuery?.cancel()
    addressQuery = nil
    stacks.removeAll()
    recency.removeAll()
    activeWindow = nil
    guard let link else { return }
    self.link = nil
    for subscription in link.subscriptions { subscription.cancel() }
    link.close()
    logger.info("undo: not following the accessibility bus any more: \(reason)")
  }

  private func forget(_ application: String) {
    stacks[application] = nil
    recency.removeAll { $0 == application }
    if activeWindow?.application == application { activeWindow = nil }
  }

  /// `StateChanged("focused" or "active", 1 or 0, …)` of an accessible.
  private func stateChanged(_ message: DBusMessage) {
    let arguments = message.arguments
    guard arguments.count >= 2, let state = arguments[0].string, let sender = message.sender,
      let path = message.path
    else { return }
    let on = arguments[1].int32 == 1
    let reference = AccessibleReference(application: sender, path: path)
    if state == "active" {
      if on {
        activeWindow = reference
      } else if activeWindow == reference {
        activeWindow = nil
      }
      return
    }
    guard state == "focused" else { return }
    stacks[sender]?.removeAll { $0 == reference }
    guard on else { return }
    stacks[sender, default: []].append(reference)
    if stacks[sender]!.count > 16 { stacks[sender]!.removeFirst() }
    recency.removeAll { $0 == sender }
    recency.append(sender)
    if recency.count > 16, let oldest = recency.first { forget(oldest) }
  }

  public func readFocus(
    deadline: Seconds, _ done: @escaping (Result<FocusedWidget, FocusReadError>) -> Void
  ) {
    let scheduler = sessionBus.scheduler
    guard let link else {
      let why = statusText
      scheduler.schedule(after: 0) { done(.failure(.notFollowing(why))) }
      return
    }
    let bus = link.bus
    let budget = FocusReadBudget(deadline: deadline, scheduler: scheduler)
    let answer: (Result<FocusedWidget, FocusReadError>) -> Void = { result in
      scheduler.schedule(after: 0) { done(result) }
    }
    // Whether a result ends the read: a focused widget, or an application that does not answer
    // (it is not searched as well).
    let settled: (Result<FocusedWidget, FocusReadError>) -> Bool = { result in
      switch result {
      case .success(let widget): widget.isFocused
      case .failure(.noAnswer): true
      case .failure: false
      }
    }
    // At once: what the applications announced (the one whose window said it became active
    // first), and which window says it is ACTIVE now. A focused widget announced by the active
    // window's application is the answer; else that application's own, else a search of its
    // window. (A notification's button says it took the focus when tapped, while the keyboard
    // focus stays in the application's window.)
    let order = Array(applicationOrder.prefix(Self.applicationLimit))
    var announced: Result<FocusedWidget, FocusReadError>?
    var window: AccessibleReference??
    let both = { [weak self] in
      guard let announced, let window else { return }
      guard let window, let self, self.link === link else { return answer(announced) }
      switch announced {
      case .success(let widget) where widget.isFocused && widget.reference.application == window.application:
        return answer(announced)
      case .failure(.noAnswer(let application, _)) where application == window.application:
        return answer(announced)
      default: break
      }
      self.read([window.application], on: bus, budget: budget) { own in
        if settled(own) { return answer(own) }
        Self.searchFocused(in: window, on: bus, deadline: deadline, scheduler: scheduler) { found in
          if settled(found) { return answer(found) }
          answer(settled(announced) ? announced : own)
        }
      }
    }
    read(order, on: bus, budget: budget) { result in
      announced = result
      both()
    }
    findActiveWindow(on: bus, budget: budget) { found in
      window = .some(found)
      both()
    }
  }

  /// The active window: a window of an application on the bus whose state says ACTIVE (the one
  /// that said it became active last when several do); nil when none does.
  private func findActiveWindow(
    on bus: any MessageBus, budget: FocusReadBudget, _ done: @escaping (AccessibleReference?) -> Void
  ) {
    let desktop = AccessibleReference(
      application: AccessibilityNames.registry, path: AccessibilityNames.rootPath)
    Self.children(of: desktop, on: bus, budget: budget) { applications in
      let applications = Array((try? applications.get())?.prefix(Self.applicationSearchLimit) ?? [])
      Self.gather(
        applications,
        { application, collect in
          Self.children(of: application, on: bus, budget: budget) { windows in
            collect((try? windows.get()) ?? [])
          }
        }
      ) { windowLists in
        let windows = Array(windowLists.joined().prefix(Self.nodeLimit))
        Self.gather(
          windows,
          { window, collect in
            Self.states(of: window, on: bus, budget: budget) { collect(try? $0.get()) }
          }
        ) { [weak self] states in
          let active = zip(windows, states).filter { $0.1?.contains(AccessibleState.active) == true }.map(\.0)
          done(active.first { $0 == self?.activeWindow } ?? active.first)
        }
      }
    }
  }

  /// How many applications on the bus are looked at for an active window.
  static let applicationSearchLimit = 64
  /// How many accessibles a search reads the states of, at most.
  static let nodeLimit = 4000
  /// How deep a search goes below the window.
  static let depthLimit = 64

  /// The deepest FOCUSED accessible below `window` (level by level, entering only VISIBLE or
  /// SHOWING accessibles: GTK 4 never says SHOWING), read as `read` does; `.noFocus` when none.
  /// The whole search takes at most `deadline` times the depth limit's eighth.
  static func searchFocused(
    in window: AccessibleReference, on bus: any MessageBus, deadline: Seconds, scheduler: any Scheduler,
    _ done: @escaping (Result<FocusedWidget, FocusReadError>) -> Void
  ) {
    let budget = FocusReadBudget(
      deadline: deadline, scheduler: scheduler, whole: deadline * Seconds(depthLimit / 8))
    var visited = 0
    var deepest: [AccessibleReference] = []
    func level(_ nodes: [AccessibleReference], depth: Int) {
      guard !nodes.isEmpty, depth < depthLimit, visited < nodeLimit, !budget.isSpent else {
        return finish()
      }
      gather(nodes, { node, collect in children(of: node, on: bus, budget: budget, collect) }) {
        results in
        // A window that does not say its children: the application does not answer.
        if depth == 0, case .failure(let error) = results[0] { return done(.failure(error)) }
        let lists = results.map { (try? $0.get()) ?? [] }
        let children = Array(lists.joined().prefix(max(0, nodeLimit - visited)))
        visited += children.count
        gather(
          children,
          { child, collect in
            states(of: child, on: bus, budget: budget) { collect(try? $0.get()) }
          }
        ) { states in
          var next: [AccessibleReference] = []
          var focused: [AccessibleReference] = []
          for (child, states) in zip(children, states) {
            guard let states else { continue }
            if states.contains(AccessibleState.focused) { focused.append(child) }
            if states.contains(AccessibleState.visible) || states.contains(AccessibleState.showing) {
              next.append(child)
            }
          }
          if !focused.isEmpty { deepest = focused }
          level(next, depth: depth + 1)
        }
      }
    }
    func finish() {
      let candidates = Array(deepest.prefix(candidateLimit))
      guard !candidates.isEmpty else { return done(.failure(.noFocus)) }
      gather(candidates, { reference, collect in read(reference, on: bus, budget: budget, collect) }) {
        done(choose($0))
      }
    }
    level([window], depth: 0)
  }

  /// Runs `each` for every item at once; `done` gets what each collected, in order, once all have.
  static func gather<Item, Value>(
    _ items: [Item], _ each: (Item, @escaping (Value) -> Void) -> Void, _ done: @escaping ([Value]) -> Void
  ) {
    guard !items.isEmpty else { return done([]) }
    var values: [Value?] = Array(repeating: nil, count: items.count)
    var remaining = items.count
    for (index, item) in items.enumerated() {
      var collected = false
      each(item) { value in
        guard !collected else { return }
        collected = true
        values[index] = value
        remaining -= 1
        if remaining == 0 { done(values.map { $0! }) }
      }
    }
  }

  /// An accessible's children (`GetChildren`, `a(so)`).
  static func children(
    of reference: AccessibleReference, on bus: any MessageBus, budget: FocusReadBudget,
    _ done: @escaping (Result<[AccessibleReference], FocusReadError>) -> Void
  ) {
    ask("GetChildren", of: reference, on: bus, budget: budget, done) { values in
      values.first?.elements?.compactMap { child in
        guard let fields = child.elements, fields.count == 2, let name = fields[0].string,
          let path = fields[1].string, !name.isEmpty, path != "/org/a11y/atspi/null"
        else { return nil }
        return AccessibleReference(application: name, path: path)
      }
    }
  }

  /// Calls `method` of the accessible within the budget; `read` takes the answer apart (nil: it
  /// is not what the method answers, and the failure names its signature).
  static func ask<Answer>(
    _ method: String, of reference: AccessibleReference, on bus: any MessageBus, budget: FocusReadBudget,
    _ done: @escaping (Result<Answer, FocusReadError>) -> Void, read: @escaping ([DBusValue]) -> Answer?
  ) {
    bus.call(
      destination: reference.application, path: reference.path, interface: AccessibilityNames.accessible,
      method: method, timeout: budget.timeout
    ) { result in
      switch result {
      case .success(let values):
        if let answer = read(values) {
          done(.success(answer))
        } else {
          done(.failure(.failed("\(method) answered '\(values.signature)'")))
        }
      case .failure(let error): done(.failure(failure(error, reference, budget.deadline)))
      }
    }
  }

  /// A call's error as a read error: no answer within `deadline`, or the error's message.
  static func failure(_ error: DBusError, _ reference: AccessibleReference, _ deadline: Seconds)
    -> FocusReadError
  {
    error.name == DBusError.Name.noReply
      ? .noAnswer(application: reference.application, seconds: deadline) : .failed(error.message)
  }

  /// An accessible's role (`GetRole`).
  static func role(
    of reference: AccessibleReference, on bus: any MessageBus, budget: FocusReadBudget,
    _ done: @escaping (Result<UInt32, FocusReadError>) -> Void
  ) {
    ask("GetRole", of: reference, on: bus, budget: budget, done) { $0.first?.uint32 }
  }

  /// An accessible's states (`GetState`).
  static func states(
    of reference: AccessibleReference, on bus: any MessageBus, budget: FocusReadBudget,
    _ done: @escaping (Result<Set<UInt32>, FocusReadError>) -> Void
  ) {
    ask("GetState", of: reference, on: bus, budget: budget, done) { values in
      guard let words = values.first?.elements?.compactMap(\.uint32), words.count == 2 else { return nil }
      return FocusedWidget.states(fromWords: words)
    }
  }

  /// Reads the candidates of every one of `applications` at once; the first, in that order, whose
  /// candidates say one of them is focused gives the answer as soon as those before it have
  /// answered, else the first that had candidates.
  private func read(
    _ applications: [String], on bus: any MessageBus, budget: FocusReadBudget,
    _ done: @escaping (Result<FocusedWidget, FocusReadError>) -> Void
  ) {
    let candidateLists = applications.map { Array((stacks[$0] ?? []).suffix(Self.candidateLimit).reversed()) }
      .filter { !$0.isEmpty }
    guard !candidateLists.isEmpty else { return done(.failure(.noFocus)) }
    var results: [Result<FocusedWidget, FocusReadError>?] = Array(repeating: nil, count: candidateLists.count)
    var finished = false
    func decideIfAnswered() {
      for result in results {
        guard let result else { return }
        if case .success(let widget) = result, widget.isFocused {
          finished = true
          return done(result)
        }
      }
      finished = true
      done(results[0]!)
    }
    for (index, candidates) in candidateLists.enumerated() {
      Self.gather(
        candidates, { reference, collect in Self.read(reference, on: bus, budget: budget, collect) }
      ) {
        guard !finished else { return }
        results[index] = Self.choose($0)
        decideIfAnswered()
      }
    }
  }

  /// How many applications are read at most.
  static let applicationLimit = 3

  /// How many of the accessibles that said they have the focus are read (the newest).
  static let candidateLimit = 4

  /// The widget the gates are asked about, of those read (newest first): a terminal or a password
  /// field among them wins (a text inside a terminal is the terminal's), then the newest editable
  /// one that says it is focused (Qt says FOCUSED for the focus widget's ancestors too), then the
  /// newest that answered.
  static func choose(_ results: [Result<FocusedWidget, FocusReadError>]) -> Result<
    FocusedWidget, FocusReadError
  > {
    let widgets = results.compactMap { try? $0.get() }
    guard let newest = widgets.first else { return results[0] }
    let focused = widgets.filter(\.isFocused)
    if let guarded = focused.first(where: {
      $0.role == AccessibleRole.terminal || $0.role == AccessibleRole.passwordText
    }) {
      return .success(guarded)
    }
    if let text = focused.first(where: { $0.isEditable && AccessibleRole.textRoles.contains($0.role) }) {
      return .success(text)
    }
    return .success(focused.first ?? newest)
  }

  /// Reads one accessible's role and states, each call bounded by `budget`.
  static func read(
    _ reference: AccessibleReference, on bus: any MessageBus, budget: FocusReadBudget,
    _ done: @escaping (Result<FocusedWidget, FocusReadError>) -> Void
  ) {
    var role: Result<UInt32, FocusReadError>?
    var states: Result<Set<UInt32>, FocusReadError>?
    var finished = false
    let finish = {
      guard !finished, let role, let states else { return }
      finished = true
      switch (role, states) {
      case (.success(let role), .success(let states)):
        done(.success(FocusedWidget(reference: reference, role: role, states: states)))
      case (.failure(let error), _), (_, .failure(let error)):
        done(.failure(error))
      }
    }
    Self.role(of: reference, on: bus, budget: budget) {
      role = $0
      finish()
    }
    Self.states(of: reference, on: bus, budget: budget) {
      states = $0
      finish()
    }
  }
}

/// How long the calls of one focus read may wait. Each call ends by the read's end, so that
/// applications that never answer hold the read `deadline` as a whole, not `deadline` each; a call
/// made late still gets a third of it, and no call more than `deadline`. An application that did
/// not answer is reported as not answering within `deadline`.
struct FocusReadBudget {
  /// The time each application is said to have had.
  let deadline: Seconds
  private let end: Seconds
  private let scheduler: any Scheduler

  /// A budget of `whole` (the deadline by default) from now.
  init(deadline: Seconds, scheduler: any Scheduler, whole: Seconds? = nil) {
    self.deadline = deadline
    self.scheduler = scheduler
    end = scheduler.now + (whole ?? deadline)
  }

  /// The timeout of a call made now.
  var timeout: Seconds { min(deadline, max(deadline / 3, end - scheduler.now)) }

  /// Whether the read's time is over.
  var isSpent: Bool { scheduler.now >= end }
}
