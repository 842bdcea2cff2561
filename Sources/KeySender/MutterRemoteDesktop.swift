import DBus
import EventTime
import Logging

#if canImport(Glibc)
  import Glibc
#endif

/// The chords through GNOME's compositor: a `org.gnome.Mutter.RemoteDesktop` session opened
/// only for the moment a chord is sent (GNOME shows its "remote control" indicator while one is
/// open), its keyboard events (`NotifyKeyboardKeycode`, evdev codes), then `Stop`.
///
/// Mutter makes the session's virtual keyboard on its first event and tells the clients about
/// it only then: on a seat with no other keyboard, that first event is lost. So the chord's first
/// modifier is tapped first (pressed and released: alone, Ctrl does nothing; mutter refuses the
/// release of a key that is not pressed), and the chord follows `settle` seconds later, when the
/// keyboard exists and the application has bound it. Whatever of the chord comes late reaches the
/// application with the modifiers the seat holds: never a bare Z.
public final class MutterRemoteDesktopSender: EditKeySender {
  public static let name = "org.gnome.Mutter.RemoteDesktop"
  static let path = "/org/gnome/Mutter/RemoteDesktop"
  static let sessionInterface = "org.gnome.Mutter.RemoteDesktop.Session"

  public var state: KeySenderState { status.state }
  private let status = KeySenderStatus(
    .unavailable(reason: "GNOME's org.gnome.Mutter.RemoteDesktop is not on the session bus"))
  /// How long the modifiers are held before the key.
  public var settle: Seconds = 0.15
  /// How long each call may take.
  public var deadline: Seconds = 2
  private let bus: any MessageBus
  private var owner: String?
  private var watch: DBusSubscription?
  private let logger: Logger

  /// Follows the name on `bus` (the session bus); only a mutter running as `uid` is used.
  public init(bus: any MessageBus, uid: UInt32 = getuid(), logger: Logger = Logger(label: "responderd")) {
    self.bus = bus
    self.logger = logger
    watch = bus.watchNameOwner(
      Self.name, runningAs: uid,
      refused: { [logger] owner, ownerUID in
        logger.notice(
          "undo: \(owner) owns \(Self.name) as uid \(ownerUID.map(String.init) ?? "?"): not used to send keys"
        )
      }
    ) { [weak self] owner in
      guard let self else { return }
      self.owner = owner
      self.status.set(
        owner == nil
          ? .unavailable(reason: "GNOME's org.gnome.Mutter.RemoteDesktop is not on the session bus")
          : .ready(api: "\(Self.name) (GNOME)"))
    }
  }

  deinit { watch?.cancel() }

  public func addObserver(_ observer: @escaping (KeySenderState) -> Void) {
    status.addObserver(observer)
  }

  public func send(_ chord: EditChord, _ done: @escaping (Result<Void, KeySendError>) -> Void) {
    guard let owner else {
      bus.scheduler.schedule(after: 0) { [state] in done(.failure(KeySendError(state.description))) }
      return
    }
    bus.call(
      destination: owner, path: Self.path, interface: Self.name, method: "CreateSession", timeout: deadline
    ) { [weak self] result in
      guard let self else { return }
      switch result {
      case .failure(let error):
        done(.failure(KeySendError("\(Self.name) refused a session: \(error.message)")))
      case .success(let values):
        guard let session = values.first?.objectPath ?? values.first?.string else {
          return done(.failure(KeySendError("CreateSession answered '\(values.signature)'")))
        }
        self.start(session, on: owner, chord: chord, done)
      }
    }
  }

  private func start(
    _ session: String, on owner: String, chord: EditChord,
    _ done: @escaping (Result<Void, KeySendError>) -> Void
  ) {
    sessionCall(owner, session, "Start", []) { [weak self] error in
      guard let self else { return }
      if let error {
        self.stop(session, on: owner)
        return done(.failure(KeySendError("\(Self.name) did not start the session: \(error.message)")))
      }
      var failure: DBusError?
      let key: (UInt32, Bool) -> Void = { code, pressed in
        self.sessionCall(owner, session, "NotifyKeyboardKeycode", [.uint32(code), .bool(pressed)]) {
          if failure == nil { failure = $0 }
        }
      }
      key(chord.modifiers[0], true)
      key(chord.modifiers[0], false)
      self.bus.scheduler.schedule(after: self.settle) { [weak self] in
        for modifier in chord.modifiers { key(modifier, true) }
        key(chord.key, true)
        key(chord.key, false)
        for modifier in chord.modifiers.reversed() { key(modifier, false) }
        // Stop after the key events: mutter takes the calls in order.
        self?.sessionCall(owner, session, "Stop", []) { error in
          if let failure = failure ?? error {
            done(.failure(KeySendError("\(Self.name) did not take the keys: \(failure.message)")))
          } else {
            done(.success(()))
          }
        }
      }
    }
  }

  private func stop(_ session: String, on owner: String) {
    sessionCall(owner, session, "Stop", []) { _ in }
  }

  private func sessionCall(
    _ owner: String, _ session: String, _ method: String, _ arguments: [DBusValue],
    _ done: @escaping (DBusError?) -> Void
  ) {
    bus.call(
      destination: owner, path: session, interface: Self.sessionInterface, method: method,
      arguments: arguments,
      timeout: deadline
    ) { result in
      switch result {
      case .success: done(nil)
      case .failure(let error): done(error)
      }
    }
  }
}
