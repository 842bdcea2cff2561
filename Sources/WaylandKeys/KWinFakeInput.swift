import CWaylandClient
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

  public private(set) var state: KeySenderState
  /// How long a probe or a chord may take.
  public var deadline: Seconds = 2
  private let loop: EventLoop
  private let displayName: String?
  private let logger: Logger
  private var observers: [(KeySenderState) -> Void] = []
  private var exchanges: [ObjectIdentifier: FakeInputExchange] = [:]

  /// A sender on the compositor `displayName` names (nil: `WAYLAND_DISPLAY`); asks it at once
  /// whether it offers fake input.
  public init(loop: EventLoop, displayName: String? = nil, logger: Logger = Logger(label: "responderd")) {
    self.loop = loop
    self.displayName = displayName
    self.logger = logger
    state = .unavailable(reason: "asking the Wayland compositor for \(Self.interface)")
    exchange(nil) { [weak self] result in
      guard let self else { return }
      switch result {
      case .success: self.set(.ready(api: "\(Self.interface) (KWin)"))
      case .failure(let error): self.set(.unavailable(reason: error.message))
      }
    }
  }

  public func addObserver(_ observer: @escaping (KeySenderState) -> Void) {
    observers.append(observer)
  }

  private func set(_ new: KeySenderState) {
    guard new != state else { return }
    state = new
    for observer in observers { observer(new) }
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
  private let sink: UnsafeMutablePointer<wt_sink>
  private let doneSink: UnsafeMutablePointer<wt_done_sink>
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
    guard let display = wl_display_connect(displayName) else {
      let socket = displayName ?? getenv("WAYLAND_DISPLAY").map { String(cString: $0) } ?? "wayland-0"
      throw KeySendError(
        "no Wayland compositor at '\(socket)' (\(String(cString: strerror(errno)))) for \(KWinFakeInputSender.interface)"
      )
    }
    guard let registry = wl_display_get_registry(display) else {
      wl_display_disconnect(display)
      throw KeySendError("the Wayland compositor gave no registry")
    }
    self.loop = loop
    self.display = display
    self.registry = registry
    self.chord = chord
    self.deadline = deadline
    self.done = done
    sink = .allocate(capacity: 1)
    doneSink = .allocate(capacity: 1)
  }

  /// Lists the globals; what follows happens on the loop.
  func begin() {
    sink.initialize(
      to: wt_sink(
        handler: { context, event in
          guard let context, let event else { return }
          Unmanaged<FakeInputExchange>.fromOpaque(context).takeUnretainedValue().handle(event.pointee)
        }, context: Unmanaged.passUnretained(self).toOpaque()))
    doneSink.initialize(
      to: wt_done_sink(
        done: { context, callback in
          guard let context, let callback else { return }
          Unmanaged<FakeInputExchange>.fromOpaque(context).takeUnretainedValue().roundTrip(callback)
        }, context: Unmanaged.passUnretained(self).toOpaque()))
    wt_listen_registry(registry, sink)
    globals = wl_display_sync(display)
    if let globals { wt_listen_done(globals, doneSink) }
    timer = loop.scheduler.schedule(after: deadline) { [weak self] in
      self?.finish(
        .failure(KeySendError("the Wayland compositor did not answer within \(Int(self?.deadline ?? 0)) s")))
    }
    do {
      source = try loop.register(fd: FileDescriptor(rawValue: wl_display_get_fd(display)), events: .readable)
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
    if wl_display_prepare_read(display) == 0, wl_display_read_events(display) < 0 {
      return finish(.failure(lost()))
    }
    if wl_display_dispatch_pending(display) < 0 { return finish(.failure(lost())) }
    flush()
  }

  private func flush() {
    guard !closed else { return }
    // A few requests on a fresh connection: they fit in the socket's buffer.
    if wl_display_flush(display) < 0 && errno != EAGAIN { finish(.failure(lost())) }
  }

  private func lost() -> KeySendError {
    let number = wl_display_get_error(display)
    return KeySendError(
      "the Wayland compositor ended the connection (\(number != 0 ? String(cString: strerror(number)) : "closed"))"
    )
  }

  private func handle(_ event: wt_event) {
    guard !closed, event.kind == WT_GLOBAL, let interface = event.interface,
      String(cString: interface) == KWinFakeInputSender.interface
    else { return }
    offered = (event.name, event.version)
  }

  /// A round trip ended: the globals are all listed, or the keys were taken.
  private func roundTrip(_ callback: OpaquePointer) {
    guard !closed else { return }
    if callback == globals {
      wl_callback_destroy(callback)
      globals = nil
      listed()
    } else if callback == keysSent {
      wl_callback_destroy(callback)
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
    guard let input = wt_bind_fake_input(registry, offered.name, 4) else {
      return finish(.failure(KeySendError("cannot bind \(KWinFakeInputSender.interface)")))
    }
    fakeInput = input
    org_kde_kwin_fake_input_authenticate(input, "responderd", "Undo or redo typing after the user's answer")
    // KWin adds a keyboard to the seat when fake input is bound; on a seat that had none, an
    // application binds its wl_keyboard only then: the first modifier is tapped alone (it does
    // nothing alone), and the chord follows a moment later.
    org_kde_kwin_fake_input_keyboard_key(input, chord.modifiers[0], 1)
    org_kde_kwin_fake_input_keyboard_key(input, chord.modifiers[0], 0)
    flush()
    settleTimer = loop.scheduler.schedule(after: settle) { [weak self] in
      guard let self, !self.closed else { return }
      for modifier in chord.modifiers { org_kde_kwin_fake_input_keyboard_key(input, modifier, 1) }
      org_kde_kwin_fake_input_keyboard_key(input, chord.key, 1)
      org_kde_kwin_fake_input_keyboard_key(input, chord.key, 0)
      for modifier in chord.modifiers.reversed() { org_kde_kwin_fake_input_keyboard_key(input, modifier, 0) }
      // Done when the compositor has taken them.
      self.keysSent = wl_display_sync(self.display)
      if let keysSent = self.keysSent { wt_listen_done(keysSent, self.doneSink) }
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
      if let globals { wl_callback_destroy(globals) }
      if let keysSent { wl_callback_destroy(keysSent) }
      if let fakeInput { org_kde_kwin_fake_input_destroy(fakeInput) }
      wl_registry_destroy(registry)
      wl_display_flush(display)
      wl_display_disconnect(display)
      sink.deallocate()
      doneSink.deallocate()
    }
    done?(result)
  }
}
