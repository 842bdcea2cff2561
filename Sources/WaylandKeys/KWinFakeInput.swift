import CWaylandKeys
import EventLoop
import EventTime
import KeySender
import Logging
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// The chords through KWin: its `org_kde_kwin_fake_input` Wayland global, bound only for the
/// moment a chord is sent (a connection of its own, closed after: KWin counts a bound fake input
/// as a keyboard and a pointer, which would end its automatic tablet mode).
///
/// KWin 5.27 offers the global only to a program whose desktop file names it
/// (`X-KDE-Wayland-Interfaces=org_kde_kwin_fake_input`, its `Exec` the program's path): the
/// package installs `responderd.desktop` for `/usr/bin/responderd`. Whether it is offered is asked
/// once at start (the registry's globals, nothing bound); `state` says so.
public final class KWinFakeInputSender: EditKeySender {
  public static let interface = "org_kde_kwin_fake_input"

  public var state: KeySenderState { status.state }
  private let status = KeySenderStatus(
    .unavailable(reason: "asking the Wayland compositor for \(KWinFakeInputSender.interface)"))
  /// How long a probe or a chord may take.
  public var deadline: Seconds = 2
  private let loop: EventLoop
  private let displayName: String?
  private let logger: Logger
  private var exchanges: [ObjectIdentifier: FakeInputExchange] = [:]

  /// A sender on the compositor `displayName` names (nil: `WAYLAND_DISPLAY`); asks it at once
  /// whether it offers fake input.
  public init(loop: EventLoop, displayName: String? = nil, logger: Logger = Logger(label: "responderd")) {
    self.loop = loop
    self.displayName = displayName
    self.logger = logger
    exchange(nil) { [weak self] result in
      guard let self else { return }
      switch result {
      case .success: self.status.set(.ready(api: "\(Self.interface) (KWin)"))
      case .failure(let error): self.status.set(.unavailable(reason: error.message))
      }
    }
  }

  public func addObserver(_ observer: @escaping (KeySenderState) -> Void) {
    status.addObserver(observer)
  }

  public func send(_ chord: EditChord, _ done: @escaping (Result<Void, KeySendError>) -> Void) {
    exchange(chord, done)
  }

  private func exchange(_ chord: EditChord?, _ done: @escaping (Result<Void, KeySendError>) -> Void) {
    do {
      var key: ObjectIdentifier?
      let exchange = try FakeInputExchange(
        loop: loop, displayName: displayName, chord: chord, deadline: deadline
      ) { [weak self] result in
        if let key { self?.exchanges[key] = nil }
        done(result)
      }
      key = ObjectIdentifier(exchange)
      exchanges[ObjectIdentifier(exchange)] = exchange
      exchange.begin()
    } catch {
      let message = (error as? KeySendError)?.message ?? "\(error)"
      loop.scheduler.schedule(after: 0) { done(.failure(KeySendError(message))) }
    }
  }
}

/// One connection to the compositor: its globals, then (for a chord) fake input bound,
/// authenticated, the chord's keys and a round trip; closed when done, failed or late.
private final class FakeInputExchange {
  private let loop: EventLoop
  private let display: OpaquePointer
  private let registry: OpaquePointer
  private let sink: UnsafeMutablePointer<rsp_wayland_sink>
  private let chord: EditChord?
  private let deadline: Seconds
  private var done: ((Result<Void, KeySendError>) -> Void)?
  private var source: IOSource?
  private var timer: ScheduledTimer?
  private var settleTimer: ScheduledTimer?
  /// How long after the first modifier's tap the chord is sent.
  private let settle: Seconds = 0.15
  private var globals: OpaquePointer?
  private var keysSent: OpaquePointer?
  private var fakeInput: OpaquePointer?
  private var offered: (name: UInt32, version: UInt32)?
  private var closed = false

  init(
    loop: EventLoop, displayName: String?, chord: EditChord?, deadline: Seconds,
    _ done: @escaping (Result<Void, KeySendError>) -> Void
  ) throws {
    guard let display = rsp_wayland_connect(displayName) else {
      if errno == ENOSYS {
        let reason = rsp_wayland_load_error().map { String(cString: $0) } ?? "?"
        throw KeySendError(
          "libwayland-client cannot be loaded (\(reason)) for \(KWinFakeInputSender.interface)")
      }
      let socket = displayName ?? getenv("WAYLAND_DISPLAY").map { String(cString: $0) } ?? "wayland-0"
      throw KeySendError(
        "no Wayland compositor at '\(socket)' (\(String(cString: strerror(errno)))) for \(KWinFakeInputSender.interface)"
      )
    }
    let sink = UnsafeMutablePointer<rsp_wayland_sink>.allocate(capacity: 1)
    guard let registry = rsp_wayland_get_registry(display, sink) else {
      rsp_wayland_disconnect(display)
      sink.deallocate()
      throw KeySendError("the Wayland compositor gave no registry")
    }
    self.loop = loop
    self.display = display
    self.registry = registry
    self.chord = chord
    self.deadline = deadline
    self.done = done
    self.sink = sink
  }

  /// Lists the globals; what follows happens on the loop.
  func begin() {
    sink.initialize(
      to: rsp_wayland_sink(
        global: { context, name, interface, version in
          guard let context, let interface else { return }
          Unmanaged<FakeInputExchange>.fromOpaque(context).takeUnretainedValue().global(
            name: name, interface: String(cString: interface), version: version)
        },
        done: { context, callback in
          guard let context, let callback else { return }
          Unmanaged<FakeInputExchange>.fromOpaque(context).takeUnretainedValue().roundTrip(callback)
        }, context: Unmanaged.passUnretained(self).toOpaque()))
    globals = rsp_wayland_sync(display, sink)
    timer = loop.scheduler.schedule(after: deadline) { [weak self] in
      self?.finish(
        .failure(KeySendError("the Wayland compositor did not answer within \(Int(self?.deadline ?? 0)) s")))
    }
    do {
      source = try loop.register(fd: FileDescriptor(rawValue: rsp_wayland_get_fd(display)), events: .readable)
      {
        [weak self] _ in self?.readable()
      }
    } catch {
      return finish(.failure(KeySendError("cannot watch the Wayland connection: \(error)")))
    }
    flush()
  }

  private func readable() {
    guard !closed else { return }
    if rsp_wayland_read(display) < 0 { return finish(.failure(lost())) }
    flush()
  }

  private func flush() {
    guard !closed else { return }
    // A few requests on a fresh connection: they fit in the socket's buffer.
    if rsp_wayland_flush(display) < 0 && errno != EAGAIN { finish(.failure(lost())) }
  }

  private func lost() -> KeySendError {
    let number = rsp_wayland_get_error(display)
    return KeySendError(
      "the Wayland compositor ended the connection (\(number != 0 ? String(cString: strerror(number)) : "closed"))"
    )
  }

  private func global(name: UInt32, interface: String, version: UInt32) {
    guard !closed, interface == KWinFakeInputSender.interface else { return }
    offered = (name, version)
  }

  /// A round trip ended: the globals are all listed, or the keys were taken.
  private func roundTrip(_ callback: OpaquePointer) {
    guard !closed else { return }
    if callback == globals {
      rsp_wayland_callback_destroy(callback)
      globals = nil
      listed()
    } else if callback == keysSent {
      rsp_wayland_callback_destroy(callback)
      keysSent = nil
      finish(.success(()))
    }
  }

  /// The globals are known: fake input offered or not; for a chord, its keys.
  private func listed() {
    guard let offered else {
      return finish(
        .failure(
          KeySendError(
            "the Wayland compositor does not offer \(KWinFakeInputSender.interface) to this program (KWin offers it to a program whose desktop file names it in X-KDE-Wayland-Interfaces)"
          )))
    }
    guard offered.version >= 4 else {
      return finish(
        .failure(
          KeySendError("\(KWinFakeInputSender.interface) version \(offered.version) has no keys (4 needed)")))
    }
    guard let chord else { return finish(.success(())) }
    guard let input = rsp_kwin_fake_input_bind(registry, offered.name, 4) else {
      return finish(.failure(KeySendError("cannot bind \(KWinFakeInputSender.interface)")))
    }
    fakeInput = input
    rsp_kwin_fake_input_authenticate(input, "responderd", "Undo or redo typing after the user's answer")
    // KWin adds a keyboard to the seat when fake input is bound; on a seat that had none, an
    // application binds its wl_keyboard only then: the first modifier is tapped alone (it does
    // nothing alone), and the chord follows a moment later.
    rsp_kwin_fake_input_key(input, chord.modifiers[0], 1)
    rsp_kwin_fake_input_key(input, chord.modifiers[0], 0)
    flush()
    settleTimer = loop.scheduler.schedule(after: settle) { [weak self] in
      guard let self, !self.closed else { return }
      for modifier in chord.modifiers { rsp_kwin_fake_input_key(input, modifier, 1) }
      rsp_kwin_fake_input_key(input, chord.key, 1)
      rsp_kwin_fake_input_key(input, chord.key, 0)
      for modifier in chord.modifiers.reversed() { rsp_kwin_fake_input_key(input, modifier, 0) }
      // Done when the compositor has taken them.
      self.keysSent = rsp_wayland_sync(self.display, self.sink)
      self.flush()
    }
  }

  /// Calls `done` once, then closes the connection after the current dispatch returns.
  private func finish(_ result: Result<Void, KeySendError>) {
    guard !closed else { return }
    closed = true
    timer?.cancel()
    timer = nil
    settleTimer?.cancel()
    settleTimer = nil
    source?.remove()
    source = nil
    let done = self.done
    self.done = nil
    loop.runSoon { [self] in
      if let globals { rsp_wayland_callback_destroy(globals) }
      if let keysSent { rsp_wayland_callback_destroy(keysSent) }
      if let fakeInput { rsp_kwin_fake_input_destroy(fakeInput) }
      rsp_wayland_registry_destroy(registry)
      rsp_wayland_flush(display)
      rsp_wayland_disconnect(display)
      sink.deallocate()
    }
    done?(result)
  }
}
