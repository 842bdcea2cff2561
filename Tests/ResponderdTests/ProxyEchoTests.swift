import DBus
import EventLoop
import EventTime
import InputCodes
import MPRIS
import ResponderClient
import ResponderConfig
import ResponderCore
import ResponderdKit
import ResponderdTestKit
import Testing

/// The proxy player never doubles a press (docs/design.md#one-press-one-action): a call on
/// `org.mpris.MediaPlayer2.responderd` that repeats a press a device made (the desktop saw the same
/// key) is published as a duplicate, not dispatched; a genuine call is dispatched. On the
/// in-memory bus and virtual time, with what `responderctl monitor` reads (EventDispatchedDetails).
@Suite final class ProxyEchoTests {
  let harness: InMemoryService
  /// The desktop's media-keys daemon (gsd-media-keys calls the proxy player as any player).
  let desktop: InMemoryBusConnection
  /// (subtype, handledBy, dropReason) of each EventDispatchedDetails signal.
  var monitor: [(String, String, String?)] = []

  var time: VirtualScheduler { harness.time }
  var service: Service { harness.service }
  var records: [DispatchRecord] { harness.records }

  init() throws {
    harness = try InMemoryService(config: "chain = [\"log\"]\n[log]\nhandles = true\n", now: 200)
    harness.add(harness.service.responderAPI(bus: harness.busComponent, session: nil, motionInterest: nil))
    harness.add(harness.service.mprisComponent(bus: harness.busComponent))
    desktop = harness.bus.connect()
    desktop.onSignal(interface: ResponderBusAPI.daemonInterface, member: "EventDispatchedDetails") {
      [unowned self] message in
      let values = message.arguments
      self.monitor.append(
        (
          values[1].string ?? "", values[3].string ?? "",
          values.count > 4 ? values[4].dictionary?["dropReason"]?.string : nil
        ))
    }
    harness.start()
    // As `responderctl monitor` does: the dispatch signals go to the connections that ask.
    desktop.call(
      destination: ResponderBusAPI.daemonName, path: ResponderBusAPI.daemonPath,
      interface: ResponderBusAPI.daemonInterface, method: "WatchEvents"
    ) { _ in }
    harness.settle()
  }

  func press(_ subtype: EventSubtype, device: String = "evdev:/dev/input/event5", owned: Bool = false) {
    service.events.postDeviceEvent(
      .remoteControl(subtype, timestamp: time.now, source: device), desktopSeesDevice: !owned)
  }

  /// A device's press, then the desktop's call of `method` on the proxy player `delay` later (the
  /// desktop saw the same key), both delivered.
  func pressThenDesktopCall(_ subtype: EventSubtype, _ method: String, after delay: Seconds) {
    press(subtype)
    time.advance(by: delay)
    proxyCall(method)
    time.advance(by: 0)
  }

  func proxyCall(_ method: String) {
    desktop.call(
      destination: MPRISNames.responderd, path: MPRISNames.objectPath, interface: MPRISNames.playerInterface,
      method: method
    ) { _ in }
  }

  var handled: [String] { records.filter { !$0.wasDropped }.map { "\($0.subtype.name) \($0.source)" } }

  @Test func theDesktopsCallForTheSamePressIsADuplicateShownByTheMonitor() {
    pressThenDesktopCall(.remoteControlTogglePlayPause, "PlayPause", after: 0.005)  // gsd-media-keys: 4–5 ms
    #expect(handled == ["togglePlayPause evdev:/dev/input/event5"])
    let duplicate = records.last
    #expect(duplicate?.source == "mpris-proxy" && duplicate?.wasDropped == true)
    #expect(
      duplicate?.dropReason
        == "duplicate of the togglePlayPause from evdev:/dev/input/event5 5 ms earlier (the same press, called by the desktop through org.mpris.MediaPlayer2.responderd)"
    )
    #expect(monitor.map(\.0) == ["togglePlayPause", "togglePlayPause"])
    #expect(monitor.last?.1 == "" && monitor.last?.2 == duplicate?.dropReason)
  }

  @Test func whenTheDesktopsCallComesFirstTheDevicesEventIsTheDuplicate() {
    proxyCall("PlayPause")
    time.advance(by: 0.002)  // responderd was busy: it reads the key after gsd's call arrived
    press(.remoteControlTogglePlayPause)
    time.advance(by: 0)
    #expect(handled == ["togglePlayPause mpris-proxy"])
    let duplicate = records.last
    #expect(duplicate?.source == "evdev:/dev/input/event5" && duplicate?.wasDropped == true)
    #expect(
      duplicate?.dropReason
        == "duplicate of the togglePlayPause called on org.mpris.MediaPlayer2.responderd 2 ms earlier (the same press, which the desktop saw first)"
    )
    #expect(monitor.last?.1 == "" && monitor.last?.2 == duplicate?.dropReason)
    // A press of its own later is dispatched.
    time.advance(by: 0.5)
    press(.remoteControlTogglePlayPause)
    time.advance(by: 0)
    #expect(handled == ["togglePlayPause mpris-proxy", "togglePlayPause evdev:/dev/input/event5"])
  }

  /// The desktop never sees the keys of a device responderd holds (a headset): its press is no
  /// call of the desktop's again, and no call of the desktop's (a keyboard's key) repeats it.
  @Test func anOwnedDevicesPressIsNeverADuplicateNorHasOne() {
    proxyCall("PlayPause")  // the keyboard's key, through gsd-media-keys
    time.advance(by: 0.02)
    press(.remoteControlTogglePlayPause, device: "evdev:/dev/input/event7", owned: true)  // the headset's
    time.advance(by: 0.02)
    proxyCall("PlayPause")  // the keyboard's key again
    time.advance(by: 0)
    #expect(
      handled == [
        "togglePlayPause mpris-proxy", "togglePlayPause evdev:/dev/input/event7",
        "togglePlayPause mpris-proxy",
      ])
    #expect(records.allSatisfy { !$0.wasDropped })
  }

  @Test func playAndPauseKeysAreThePlayPauseKeyToTheDesktop() {
    pressThenDesktopCall(.remoteControlPlay, "PlayPause", after: 0.004)
    pressThenDesktopCall(.remoteControlPause, "Pause", after: 0.004)
    #expect(handled == ["play evdev:/dev/input/event5", "pause evdev:/dev/input/event5"])
    #expect(records.count == 4)
  }

  @Test func aGenuineCallIsDispatchedBeforeAfterTheWindowOrForAnotherAction() {
    proxyCall("PlayPause")  // no press behind it: a desktop widget, playerctl
    time.advance(by: 1)
    press(.remoteControlTogglePlayPause)
    time.advance(by: 0.005)
    proxyCall("Next")  // another action
    time.advance(by: ProxyEchoFilter.standardWindow)
    proxyCall("PlayPause")  // 0.105 s after the press: a deliberate call
    time.advance(by: 0)
    #expect(
      handled == [
        "togglePlayPause mpris-proxy", "togglePlayPause evdev:/dev/input/event5", "nextTrack mpris-proxy",
        "togglePlayPause mpris-proxy",
      ])
    #expect(records.allSatisfy { !$0.wasDropped })
  }

  @Test func onePressSwallowsOneCallOnlyAndEachPressItsOwn() {
    press(.remoteControlTogglePlayPause)
    time.advance(by: 0.003)
    proxyCall("PlayPause")
    time.advance(by: 0.002)
    proxyCall("PlayPause")  // a second call for one press: someone else asked too
    time.advance(by: 0.3)
    for _ in 0..<3 {
      pressThenDesktopCall(.remoteControlNextTrack, "Next", after: 0.004)
      time.advance(by: 0.3)
    }
    #expect(
      handled == [
        "togglePlayPause evdev:/dev/input/event5", "togglePlayPause mpris-proxy",
        "nextTrack evdev:/dev/input/event5", "nextTrack evdev:/dev/input/event5",
        "nextTrack evdev:/dev/input/event5",
      ])
    #expect(records.filter(\.wasDropped).count == 4)
  }
}

/// One press, one action for next and previous (docs/design.md#one-press-one-action): the desktop
/// calls Next on the proxy player when the key goes down, while responderd skips when it comes up
/// (next and previous seek when held), a click's length later. The desktop's call for that press
/// is still the same press. On the fake devices, the in-memory bus and virtual time.
@Suite final class SkipKeyEchoTests {
  let harness: InMemoryService
  let devices = FakeInputDevices()
  let keyboard: FakeInputDevice
  let desktop: InMemoryBusConnection

  var time: VirtualScheduler { harness.time }
  var handled: [String] {
    harness.records.filter { !$0.wasDropped }.map { "\($0.subtype.name) \($0.source)" }
  }

  init() throws {
    harness = try InMemoryService(config: "chain = [\"log\"]\n[log]\nhandles = true\n", now: 200)
    keyboard = FakeInputDevice.keyboard(time: harness.time)
    devices.plugIn(keyboard)
    harness.add(harness.service.mprisComponent(bus: harness.busComponent))
    harness.add(harness.service.keysComponent(bus: nil, devices: devices, keyScheduler: harness.time))
    desktop = harness.bus.connect()
    harness.start()
    harness.settle()
  }

  func proxyCall(_ method: String) {
    desktop.call(
      destination: MPRISNames.responderd, path: MPRISNames.objectPath, interface: MPRISNames.playerInterface,
      method: method
    ) { _ in }
  }

  /// The key down, the desktop's call 5 ms later, the key up `held` after it went down.
  func click(_ code: UInt16, _ method: String, held: Seconds) {
    keyboard.press(code)
    time.advance(by: 0.005)
    proxyCall(method)
    time.advance(by: held - 0.005)
    keyboard.release(code)
    time.advance(by: 0)
  }

  @Test(arguments: [0.08, 0.15, 0.3, 0.45])
  func theDesktopsCallAtTheKeysPressIsTheSamePressAsTheSkipAtItsRelease(held: Seconds) {
    click(InputCode.KEY_NEXTSONG, "Next", held: held)
    #expect(handled == ["nextTrack mpris-proxy"])
    let duplicate = harness.records.last
    #expect(duplicate?.source == "evdev:/dev/input/event3" && duplicate?.wasDropped == true)
    #expect(harness.records.count == 2)
  }

  @Test func aCallWellBeforeTheKeyWentDownIsAnotherPress() {
    proxyCall("Next")  // a desktop widget
    time.advance(by: 0.3)
    keyboard.click(InputCode.KEY_NEXTSONG, holding: 0.15)
    time.advance(by: 0)
    #expect(handled == ["nextTrack mpris-proxy", "nextTrack evdev:/dev/input/event3"])
  }
}
