import DBus
import DesktopWatch
import EventTime
import Glibc
import ResponderdTestKit
import Testing

/// The detection of a desktop that handles media keys, on the in-memory bus (virtual time):
/// gsd-media-keys's name for GNOME and Phosh, kglobalaccel's `mediacontrol` component for KDE.
@Suite struct DesktopDetectionTests {
  let time = VirtualScheduler(now: 100)
  let bus: InMemoryBus
  let responderd: InMemoryBusConnection
  let watcher = DesktopMediaKeysWatcher()
  /// Every value the watcher announced, in order.
  let seen = Seen()

  final class Seen {
    var values: [DesktopMediaKeysHandler?] = []
  }

  init() {
    bus = InMemoryBus(scheduler: time)
    responderd = bus.connect()
    watcher.addObserver { [seen] in seen.values.append($0) }
  }

  @Test func gsdMediaKeysOnTheBusIsGNOMEAndWithPhoshItIsPhosh() {
    watcher.attach(to: responderd)
    time.advance(by: 0)
    #expect(watcher.found == nil)

    let gsd = bus.connect()
    gsd.requestName(DesktopNames.gnomeMediaKeys)
    time.advance(by: 0)
    #expect(watcher.found == .gnome)
    #expect(watcher.found?.description == "GNOME (gsd-media-keys)")

    let phosh = bus.connect()
    phosh.requestName(DesktopNames.phosh)
    time.advance(by: 0)
    #expect(watcher.found == .phosh)

    gsd.leave()
    time.advance(by: 0)
    #expect(watcher.found == nil)
    #expect(seen.values == [.gnome, .phosh, nil])
  }

  /// phosh owns `org.gnome.Shell` (since 0.21) and says so in its `ShellVersion`, as the real
  /// phosh 0.24 does ("43 (phosh 0.24.0)"); GNOME Shell says "43.9".
  @Test func phoshIsToldFromGNOMEShellByItsVersion() throws {
    var shells: [DesktopShell?] = []
    watcher.addShellObserver { shells.append($0) }
    watcher.attach(to: responderd)
    let phosh = try bus.gnomeShell(version: "43 (phosh 0.24.0)")
    time.advance(by: 0)
    let gsd = bus.connect()
    gsd.requestName(DesktopNames.gnomeMediaKeys)
    time.advance(by: 0)
    #expect(watcher.shell == .phosh)
    #expect(watcher.phoshVersion == "0.24.0")
    #expect(watcher.found == .phosh)
    phosh.leave()
    time.advance(by: 0)
    let gnome = try bus.gnomeShell(version: "43.9")
    time.advance(by: 0)
    #expect(watcher.shell == .gnome)
    #expect(watcher.phoshVersion == nil)
    #expect(watcher.found == .gnome)
    gnome.leave()
    time.advance(by: 0)
    _ = try bus.gnomeShell(version: "48 (phosh 0.49.0)")
    time.advance(by: 0)
    #expect(watcher.phoshVersion == "0.49.0")
    #expect(shells == [.phosh, nil, .gnome, nil, .phosh])
    // gsd-media-keys stayed: Phosh's, then (alone, or with GNOME Shell) GNOME's, then Phosh's.
    #expect(seen.values == [.phosh, .gnome, .phosh])
  }

  @Test func aDesktopAlreadyRunningIsFoundAtAttach() {
    let gsd = bus.connect()
    gsd.requestName(DesktopNames.gnomeMediaKeys)
    time.advance(by: 0)
    watcher.attach(to: responderd)
    time.advance(by: 0)
    #expect(watcher.found == .gnome)
  }

  @Test func kglobalaccelAloneIsNotPlasmaMediaControlRegisteringLaterIs() throws {
    let kde = try FakeKGlobalAccel(bus: bus, components: ["/component/kwin", "/component/plasmashell"])
    watcher.attach(to: responderd)
    kde.own()
    time.advance(by: 0)
    #expect(watcher.found == nil)

    // Nothing on the bus says so; the service asks again at a new caller (Plasma reads the
    // players next, responderd's proxy among them).
    kde.registerMediacontrol()
    time.advance(by: 0)
    #expect(watcher.found == nil)
    watcher.recheck()
    time.advance(by: 0)
    #expect(watcher.found == .kdePlasma)

    kde.connection.leave()
    time.advance(by: 0)
    #expect(watcher.found == nil)
    #expect(seen.values == [.kdePlasma, nil])
  }

  @Test func plasmaRunningBeforeResponderdIsFoundAndAFailingListIsNoDesktop() throws {
    let kde = try FakeKGlobalAccel(
      bus: bus, components: ["/component/kwin", DesktopNames.mediacontrolComponent])
    kde.own()
    time.advance(by: 0)
    watcher.attach(to: responderd)
    time.advance(by: 0)
    #expect(watcher.found == .kdePlasma)

    // A signal from kglobalaccel reads the list again; an error answer means no mediacontrol.
    kde.failing = true
    try kde.connection.emitSignal(
      path: DesktopNames.kglobalaccelPath, interface: DesktopNames.kglobalaccelInterface,
      name: "yourShortcutGotChanged",
      arguments: [
        .array(elementSignature: "s", ["kwin", "x", "KWin", "x"]), .array(elementSignature: "i", []),
      ])
    time.advance(by: 0)
    #expect(watcher.found == nil)
  }

  @Test func aSignalOfTheSameInterfaceFromAnotherConnectionIsIgnored() throws {
    let kde = try FakeKGlobalAccel(bus: bus, components: ["/component/kwin"])
    kde.own()
    watcher.attach(to: responderd)
    time.advance(by: 0)
    let impostor = try FakeKGlobalAccel(bus: bus, components: [DesktopNames.mediacontrolComponent])
    try impostor.changeShortcut()
    time.advance(by: 0)
    #expect(watcher.found == nil)
  }

  /// Issue 38: another user's program owning a desktop's name (a bus shared by users) made
  /// responderd leave the keyboard to "the desktop".
  @Test func namesOwnedByAnotherUserAreNotBelieved() throws {
    let strangerUID = getuid() &+ 1
    let gsd = bus.connect(uid: strangerUID)
    gsd.requestName(DesktopNames.gnomeMediaKeys)
    let kde = try FakeKGlobalAccel(
      bus: bus, components: [DesktopNames.mediacontrolComponent], uid: strangerUID)
    kde.own()
    watcher.attach(to: responderd)
    time.advance(by: 0)
    #expect(watcher.found == nil)
    #expect(kde.listed == 0)

    // The user's own gsd-media-keys, once the stranger's has gone, is believed.
    gsd.leave()
    let own = bus.connect()
    own.requestName(DesktopNames.gnomeMediaKeys)
    time.advance(by: 0)
    #expect(watcher.found == .gnome)
    #expect(seen.values == [.gnome])
  }

  @Test func detachForgetsTheDesktop() {
    let gsd = bus.connect()
    gsd.requestName(DesktopNames.gnomeMediaKeys)
    watcher.attach(to: responderd)
    time.advance(by: 0)
    #expect(watcher.found == .gnome)
    watcher.detach()
    #expect(watcher.found == nil)
  }
}
