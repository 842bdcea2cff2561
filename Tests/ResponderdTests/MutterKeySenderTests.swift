import DBus
import EventTime
import Glibc
import KeySender
import ResponderdTestKit
import Testing

/// The chords through GNOME's `org.gnome.Mutter.RemoteDesktop`, against a mutter on the in-memory
/// bus that records its sessions and their keyboard events.
@Suite struct MutterKeySenderTests {
  let time = VirtualScheduler(now: 10)
  let bus: InMemoryBus
  let sender: MutterRemoteDesktopSender

  init() {
    bus = InMemoryBus(scheduler: time)
    sender = MutterRemoteDesktopSender(bus: bus.connect())
  }

  /// Mutter's RemoteDesktop: CreateSession gives a session object; its Start, Stop and
  /// NotifyKeyboardKeycode are recorded with the time they came.
  final class Mutter {
    let connection: InMemoryBusConnection
    /// "CreateSession", "Start", "key 29 down", …, "Stop", with the time.
    var calls: [(String, Seconds)] = []
    var refuses = false
    var pressed = Set<UInt32>()
    private var sessions = 0
    private let time: VirtualScheduler

    init(bus: InMemoryBus, time: VirtualScheduler, uid: UInt32 = getuid()) throws {
      self.time = time
      connection = bus.connect(uid: uid)
      try connection.export(
        path: "/org/gnome/Mutter/RemoteDesktop",
        interfaces: [
          DBusInterface(
            "org.gnome.Mutter.RemoteDesktop",
            methods: [
              DBusMethod("CreateSession", out: "o") { [unowned self] _ in
                if self.refuses { throw DBusError("org.freedesktop.DBus.Error.AccessDenied", "Not allowed") }
                self.sessions += 1
                let path = "/org/gnome/Mutter/RemoteDesktop/Session/u\(self.sessions)"
                self.calls.append(("CreateSession", time.now))
                try self.connection.export(
                  path: path,
                  interfaces: [
                    DBusInterface(
                      "org.gnome.Mutter.RemoteDesktop.Session",
                      methods: [
                        DBusMethod("Start") { [unowned self] _ in
                          self.calls.append(("Start", time.now))
                          return []
                        },
                        DBusMethod("Stop") { [unowned self] _ in
                          self.calls.append(("Stop", time.now))
                          return []
                        },
                        DBusMethod("NotifyKeyboardKeycode", in: "ub") { [unowned self] call in
                          let code = call.arguments[0].uint32 ?? 0
                          let down = call.arguments[1].bool ?? false
                          // As mutter 43: a release of a key the session has not pressed is refused.
                          if down {
                            self.pressed.insert(code)
                          } else if self.pressed.remove(code) == nil {
                            throw DBusError("org.freedesktop.DBus.Error.Failed", "Invalid key event")
                          }
                          self.calls.append(("key \(code) \(down ? "down" : "up")", time.now))
                          return []
                        },
                      ])
                  ])
                return [.objectPath(path)]
              }
            ])
        ])
      connection.requestName("org.gnome.Mutter.RemoteDesktop")
    }

    var names: [String] { calls.map(\.0) }
  }

  func send(_ chord: EditChord) -> () -> Result<Void, KeySendError>? {
    var result: Result<Void, KeySendError>?
    sender.send(chord) { result = $0 }
    return { result }
  }

  /// Sends `chord` and lets a second of virtual time pass.
  func sendAndWait(_ chord: EditChord) -> () -> Result<Void, KeySendError>? {
    let result = send(chord)
    time.advance(by: 1)
    return result
  }

  @Test func undoIsCtrlZInASessionOpenForTheMomentOnly() throws {
    #expect(!sender.state.isReady)
    let mutter = try Mutter(bus: bus, time: time)
    time.advance(by: 0)
    #expect(sender.state == .ready(api: "org.gnome.Mutter.RemoteDesktop (GNOME)"))
    let result = sendAndWait(.undo)
    #expect(try result()?.get() != nil)
    #expect(
      mutter.names == [
        "CreateSession", "Start", "key 29 down", "key 29 up", "key 29 down", "key 44 down", "key 44 up",
        "key 29 up", "Stop",
      ])
    // First a tap of Ctrl (it makes mutter's keyboard), then the chord once the keyboard reached
    // the application: the chord's Ctrl is never its first event.
    let warm = try #require(mutter.calls.first { $0.0 == "key 29 up" }?.1)
    let ctrl = try #require(mutter.calls.last { $0.0 == "key 29 down" }?.1)
    #expect(ctrl - warm >= 0.15)
  }

  @Test func redoIsCtrlShiftZ() throws {
    let mutter = try Mutter(bus: bus, time: time)
    time.advance(by: 0)
    let result = sendAndWait(.redo)
    #expect(try result()?.get() != nil)
    #expect(
      mutter.names == [
        "CreateSession", "Start", "key 29 down", "key 29 up", "key 29 down", "key 42 down", "key 44 down",
        "key 44 up",
        "key 42 up",
        "key 29 up", "Stop",
      ])
  }

  @Test func aRefusedSessionSaysWhy() throws {
    let mutter = try Mutter(bus: bus, time: time)
    mutter.refuses = true
    time.advance(by: 0)
    let result = sendAndWait(.undo)
    #expect(throws: KeySendError("org.gnome.Mutter.RemoteDesktop refused a session: Not allowed")) {
      try result()?.get()
    }
  }

  @Test func mutterGoneIsNoneWithTheReason() throws {
    let mutter = try Mutter(bus: bus, time: time)
    time.advance(by: 0)
    mutter.connection.leave()
    time.advance(by: 0)
    #expect(
      sender.state.description == "none: GNOME's org.gnome.Mutter.RemoteDesktop is not on the session bus")
    let result = sendAndWait(.undo)
    #expect(throws: KeySendError.self) { try result()?.get() }
  }

  @Test func anotherUsersMutterIsNotUsed() throws {
    _ = try Mutter(bus: bus, time: time, uid: getuid() + 1)
    time.advance(by: 0)
    #expect(!sender.state.isReady)
  }

  @Test func theFirstReadySenderIsUsed() throws {
    let none = FirstReadyKeySender([sender], noneReason: "no compositor API to send keys")
    #expect(
      none.state.description == "none: GNOME's org.gnome.Mutter.RemoteDesktop is not on the session bus")
    _ = try Mutter(bus: bus, time: time)
    time.advance(by: 0)
    #expect(none.state.description == "org.gnome.Mutter.RemoteDesktop (GNOME)")
  }
}
