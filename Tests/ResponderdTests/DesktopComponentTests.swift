import DBus
import DesktopWatch
import EventLoop
import EventTime
import ResponderConfig
import ResponderdKit
import ResponderdTestKit
import ShellGestures
import Testing

/// `[keys] desktop-handles-media-keys` in the service: what the devices report (and so
/// `responderctl devices` and `status`) says, as the desktop comes and goes on the bus.
@Suite final class DesktopComponentTests {
  let time = VirtualScheduler(now: 10)
  let bus: InMemoryBus

  init() { bus = InMemoryBus(scheduler: time) }

  func service(_ setting: String, shell: String = "auto") throws -> (Service, KeysComponent, DesktopComponent)
  {
    let harness = try InMemoryService(
      config:
        "[keys]\nenabled = false\ndesktop-handles-media-keys = \"\(setting)\"\n[touch]\nshell = \"\(shell)\"\n"
        + "[[touch.gesture]]\ngesture = \"tap\"\nevent = \"play\"\n",
      bus: bus, time: time)
    let keys = harness.service.keysComponent(bus: harness.busComponent)
    let desktop = harness.service.desktopComponent(keys: keys, bus: harness.busComponent)
    harness.add(keys)
    harness.add(desktop)
    harness.start()
    harnesses.append(harness)
    return (harness.service, keys, desktop)
  }
  /// The services made, kept until the suite ends (each test stops its own).
  private var harnesses: [InMemoryService] = []

  @Test func autoFollowsGsdMediaKeysOnTheBus() throws {
    let (service, keys, desktop) = try service("auto")
    defer { service.stop() }
    #expect(desktop.desktop == nil)
    #expect(keys.report.notes.first?.hasPrefix("desktop: none handles media keys") == true)

    let gsd = bus.connect()
    gsd.requestName(DesktopNames.gnomeMediaKeys)
    time.advance(by: 0)
    #expect(desktop.desktop == "GNOME (gsd-media-keys)")
    #expect(
      keys.report.notes.first
        == "desktop: GNOME (gsd-media-keys) handles media keys: shared devices (keyboards, remotes, devices another program holds) are left to it, so that one press makes one action; owned devices stay responderd's"
    )

    gsd.leave()
    time.advance(by: 0)
    #expect(desktop.desktop == nil)
    #expect(keys.report.notes.first?.hasPrefix("desktop: none handles media keys") == true)
  }

  @Test func yesNeedsNoDetectionAndNoIgnoresTheDesktop() throws {
    let gsd = bus.connect()
    gsd.requestName(DesktopNames.gnomeMediaKeys)
    time.advance(by: 0)

    let (yesService, yesKeys, yes) = try service("yes")
    defer { yesService.stop() }
    #expect(yes.desktop == "the desktop's own key bindings (desktop-handles-media-keys = \"yes\")")
    #expect(
      yesKeys.report.notes.first
        == "desktop: handles media keys (desktop-handles-media-keys = \"yes\"): shared devices are left to it; owned devices stay responderd's"
    )

    let (noService, noKeys, no) = try service("no")
    defer { noService.stop() }
    #expect(no.desktop == nil)
    #expect(
      noKeys.report.notes.first
        == "desktop: not consulted (desktop-handles-media-keys = \"no\"): responderd reads the media keys of shared devices too"
    )
  }

  /// `[touch] shell = "auto"`: the shell profile follows the shell on the bus (whatever the keys
  /// setting says), and the devices report names it. gsd-media-keys alone (another desktop that
  /// runs it) is no shell.
  @Test func shellProfileFollowsTheDesktop() throws {
    let (service, keys, desktop) = try service("yes")
    defer { service.stop() }
    var seen: [ShellProfile] = []
    desktop.addShellProfileObserver { seen.append($0) }
    #expect(desktop.shellProfile == ShellProfile.none)
    #expect(
      keys.report.notes.last?.hasPrefix("touch: shell profile none (no GNOME Shell, Phosh or KWin") == true)

    let gsd = bus.connect()
    gsd.requestName(DesktopNames.gnomeMediaKeys)
    time.advance(by: 0)
    #expect(desktop.shellProfile == ShellProfile.none)
    let shell = bus.connect()
    shell.requestName(DesktopNames.gnomeShell)
    time.advance(by: 0)
    #expect(desktop.shellProfile == .gnome)
    #expect(
      keys.report.notes.last
        == "touch: shell profile gnome (GNOME Shell 40+, found on the session bus): the shell takes every touch sequence that reaches 3 fingers, and a one-finger drag from within 20 px of the bottom edge: no gesture rule acts on those"
    )

    let phosh = bus.connect()
    phosh.requestName(DesktopNames.phosh)
    time.advance(by: 0)
    #expect(desktop.shellProfile == .phosh)
    gsd.leave()
    phosh.leave()
    shell.leave()
    time.advance(by: 0)
    let kwin = bus.connect()
    kwin.requestName(DesktopNames.kwin)
    time.advance(by: 0)
    #expect(desktop.shellProfile == .kde)
    #expect(seen == [.gnome, .phosh, .gnome, .none, .kde])
  }

  /// phosh owns `org.gnome.Shell` and names its release in `ShellVersion`: 0.24 (Debian 12) has
  /// the 40 px home button bar, 0.35 and later the 15 px home bar.
  @Test func phoshProfileFollowsItsRelease() throws {
    let (service, keys, desktop) = try service("auto")
    defer { service.stop() }
    let old = try bus.gnomeShell(version: "43 (phosh 0.24.0)")
    time.advance(by: 0)
    #expect(desktop.shellProfile == .phosh034)
    #expect(
      keys.report.notes.last
        == "touch: shell profile phosh-0.34 (Phosh 0.34 and earlier, found on the session bus): the shell takes the touches landing on its top bar (32 px) and its home bar (40 px): no gesture rule acts on those"
    )
    old.leave()
    _ = try bus.gnomeShell(version: "48 (phosh 0.49.0)")
    time.advance(by: 0)
    #expect(desktop.shellProfile == .phosh)
    #expect(keys.report.notes.last?.contains("its home bar (15 px)") == true)
  }

  /// A configured shell is kept whatever the bus says.
  @Test func configuredShellProfile() throws {
    let gsd = bus.connect()
    gsd.requestName(DesktopNames.gnomeMediaKeys)
    time.advance(by: 0)
    let (service, keys, desktop) = try service("auto", shell: "kde")
    defer { service.stop() }
    #expect(desktop.desktop == "GNOME (gsd-media-keys)")
    #expect(desktop.shellProfile == .kde)
    #expect(
      keys.report.notes.last
        == "touch: shell profile kde (KDE Plasma (KWin), shell = \"kde\"): the shell takes a touch sequence whose third finger lands within 250 ms of the one before and within 50 mm of another: no gesture rule acts on those"
    )
  }

  /// KDE Plasma started after responderd: kglobalaccel (KWin) is on the bus first, then Plasma's
  /// media controller registers its shortcuts, which kglobalaccel does not announce (KWin 5.27,
  /// Plasma 5.27), and reads every MPRIS player, responderd's among them. That first call of a new
  /// program makes responderd ask kglobalaccel again: Plasma is found before its first key.
  @Test func plasmaStartedAfterResponderdIsFoundAtItsFirstCall() throws {
    let kglobalaccel = try FakeKGlobalAccel(bus: bus, components: ["/component/kwin"])
    kglobalaccel.own()
    let (service, keys, desktop) = try service("auto")
    defer { service.stop() }
    #expect(desktop.desktop == nil, "KWin's kglobalaccel alone is not Plasma's media keys")

    kglobalaccel.registerMediacontrol()  // unannounced
    time.advance(by: 0)
    #expect(desktop.desktop == nil)

    // Plasma's media controller reads responderd's proxy player (any call of a new program).
    let plasma = bus.connect()
    var answered = false
    plasma.call(
      destination: BusComponent.daemonName, path: KeysComponent.devicesPath,
      interface: "org.freedesktop.DBus.Properties", method: "GetAll",
      arguments: [.string("org.mpris.MediaPlayer2.Player")], timeout: 5
    ) { _ in answered = true }
    time.advance(by: 0)
    #expect(answered)
    #expect(desktop.desktop == "KDE Plasma (kglobalaccel's mediacontrol component)")
    #expect(
      keys.report.notes.first?.hasPrefix(
        "desktop: KDE Plasma (kglobalaccel's mediacontrol component) handles media keys") == true)
  }
}
