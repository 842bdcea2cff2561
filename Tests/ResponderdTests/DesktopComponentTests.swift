import DBus
import DesktopWatch
import EventLoop
import EventTime
import ResponderConfig
import ResponderdKit
import ResponderdTestKit
import Testing

/// `[keys] desktop-handles-media-keys` in the service: what the devices report (and so
/// `responderctl devices` and `status`) says, as the desktop comes and goes on the bus.
@Suite final class DesktopComponentTests {
  let time = VirtualScheduler(now: 10)
  let bus: InMemoryBus

  init() { bus = InMemoryBus(scheduler: time) }

  func service(_ setting: String) throws -> (Service, KeysComponent, DesktopComponent) {
    let config = try ResponderdConfig.parse(
      "[keys]\nenabled = false\ndesktop-handles-media-keys = \"\(setting)\"\n", file: "test.toml")
    let service = Service(config: config, loop: try EventLoop(), scheduler: time, logger: recordingLogger().0)
    let busComponent = BusComponent(bus: bus.connect())
    service.bus = busComponent
    service.add(busComponent)
    let keys = KeysComponent()
    let desktop = DesktopComponent(keys: keys)
    service.add(keys)
    service.add(desktop)
    service.start()
    time.advance(by: 0)
    return (service, keys, desktop)
  }

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
      keys.report.notes == [
        "desktop: GNOME (gsd-media-keys) handles media keys: shared devices (keyboards, remotes, devices another program holds) are left to it, so that one press makes one action; owned devices stay responderd's"
      ])

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
      yesKeys.report.notes == [
        "desktop: handles media keys (desktop-handles-media-keys = \"yes\"): shared devices are left to it; owned devices stay responderd's"
      ])

    let (noService, noKeys, no) = try service("no")
    defer { noService.stop() }
    #expect(no.desktop == nil)
    #expect(
      noKeys.report.notes == [
        "desktop: not consulted (desktop-handles-media-keys = \"no\"): responderd reads the media keys of shared devices too"
      ])
  }
}
