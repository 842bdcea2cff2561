import EvdevInput
import InputCodes
import ResponderCore
import ResponderdKit
import ResponderdTestKit
import Testing

/// The keys component on the test kit's `FakeInputDevices` (virtual time, no device, no
/// process): what the application is given when a headset's button is clicked, what
/// `responderctl devices` says of each device, and what the desktop sees, as a grab is refused,
/// a key is down when the device is opened, or the headset is unplugged mid-press.
@Suite struct KeysSeamTests: InMemoryServiceSuite {
  let harness: InMemoryService
  let devices = FakeInputDevices()
  let headset: FakeInputDevice
  let keyboard: FakeInputDevice
  let keys: KeysComponent

  init() throws {
    harness = try InMemoryService()
    headset = FakeInputDevice.usbHeadset(time: harness.time)
    keyboard = FakeInputDevice.keyboard(time: harness.time)
    devices.plugIn(keyboard)
    keys = harness.service.keysComponent(bus: nil, devices: devices, keyScheduler: harness.time)
    harness.add(keys)
  }

  func status(_ device: FakeInputDevice) -> DeviceStatus? {
    keys.deviceStatuses.first { $0.path == device.path }
  }

  @Test func aHeadsetClickBecomesARemoteControlEventTheDesktopNeverSees() {
    devices.plugIn(headset)
    harness.start()
    #expect(headset.isGrabbed && status(headset)?.state == .owned)
    headset.click(InputCode.KEY_MEDIA)
    time.advance(by: 0.399)
    #expect(delivered.isEmpty, "a second click may still come")
    time.advance(by: 0.001)
    #expect(delivered == ["togglePlayPause"])
    #expect(headset.desktopSaw.isEmpty)
    // A keyboard is shared: only its media keys are read, never a typing key.
    #expect(!keyboard.isGrabbed && status(keyboard)?.state == .shared)
    #expect(keyboard.disabledKeys.isSuperset(of: Set(1...88)))
  }

  @Test func aGrabRefusedLeavesTheHeadsetSharedAndItsClicksStillAct() {
    headset.grabRefusal = .permissionDenied
    devices.plugIn(headset)
    harness.start()
    #expect(!headset.isGrabbed && status(headset)?.state == .shared)
    #expect(status(headset)?.reasonCode == "grab-failed")
    #expect(
      log.all.contains { $0.hasPrefix("warning: evdev: /dev/input/event7") && $0.contains("cannot grab it") })
    headset.click(InputCode.KEY_MEDIA)
    time.advance(by: 0.4)
    #expect(delivered == ["togglePlayPause"])
    #expect(
      headset.desktopSaw == [InputCode.KEY_MEDIA, InputCode.KEY_MEDIA], "shared: the desktop sees it too")
  }

  @Test func aHeadsetHeldByAnotherProgramIsSaidSoAndTheRestGoesOn() {
    headset.grabRefusal = .resourceBusy
    devices.plugIn(headset)
    harness.start()
    #expect(status(headset)?.reasonCode == "busy")
    #expect(status(headset)?.reason == "another program holds it (EVIOCGRAB: busy)")
    keyboard.click(InputCode.KEY_PLAYPAUSE)
    time.advance(by: 1)
    #expect(delivered == ["togglePlayPause"])
  }

  @Test func aKeyDownAtOpenDelaysTheGrabUntilItIsUp() {
    headset.hold(InputCode.KEY_MEDIA)
    devices.plugIn(headset)
    harness.start()
    #expect(!headset.isGrabbed && status(headset)?.reasonCode == "key-down")
    headset.release(InputCode.KEY_MEDIA)
    #expect(headset.isGrabbed && status(headset)?.state == .owned)
    time.advance(by: 1)
    #expect(delivered.isEmpty, "the release of a press never read is no click")
    headset.click(InputCode.KEY_MEDIA)
    time.advance(by: 0.4)
    #expect(delivered == ["togglePlayPause"])
  }

  @Test func aHeadsetUnpluggedMidClickLosesNoKeyAndStopsNoOtherDevice() {
    devices.plugIn(headset)
    harness.start()
    headset.press(InputCode.KEY_MEDIA)
    time.advance(by: 0.1)
    // The release is queued when the headset goes: read before its hang-up.
    headset.queue(InputCode.KEY_MEDIA, value: 0)
    headset.unplug()
    #expect(status(headset) == nil && !headset.isOpen)
    #expect(
      log.all.contains {
        $0.hasPrefix("info: evdev: closed /dev/input/event7 'C-Media USB Headphone Set' (gone")
      })
    time.advance(by: 0.4)
    #expect(delivered == ["togglePlayPause"])
    keyboard.click(InputCode.KEY_NEXTSONG)
    time.advance(by: 1)
    #expect(delivered == ["togglePlayPause", "nextTrack"])
    devices.plugIn(headset)
    #expect(headset.isGrabbed && status(headset)?.state == .owned)
  }

  @Test func aSeekUnderWayEndsWhenTheHeadsetIsUnplugged() {
    devices.plugIn(headset)
    harness.start()
    headset.click(InputCode.KEY_MEDIA)
    time.advance(by: 0.2)
    headset.click(InputCode.KEY_MEDIA)
    time.advance(by: 0.2)
    headset.press(InputCode.KEY_MEDIA)
    time.advance(by: 1)
    #expect(delivered == ["beginSeekingBackward"])
    headset.unplug()
    #expect(delivered == ["beginSeekingBackward", "endSeekingBackward"])
    time.advance(by: 5)
    #expect(delivered.count == 2)
  }
}

/// docs/design.md#one-press-one-action: while the desktop handles media keys itself, responderd
/// does not act on the keys of the devices it shares with it (one press, one action); its owned
/// headset stays its own.
extension KeysSeamTests {
  @Test func aSharedKeyboardsMediaKeyIsTheDesktopsAloneWhileItHandlesThem() {
    devices.plugIn(headset)
    keys.setDesktop("GNOME (gsd-media-keys)")
    harness.start()
    keyboard.click(InputCode.KEY_PLAYPAUSE)
    time.advance(by: 1)
    #expect(delivered.isEmpty, "the desktop acts on the keyboard's key: responderd must not too")
    #expect(keyboard.desktopSaw == [InputCode.KEY_PLAYPAUSE, InputCode.KEY_PLAYPAUSE])
    headset.click(InputCode.KEY_MEDIA)
    time.advance(by: 1)
    #expect(delivered == ["togglePlayPause"], "the owned headset is still responderd's")
    #expect(headset.desktopSaw.isEmpty)

    keys.setDesktop(nil)
    keyboard.click(InputCode.KEY_PLAYPAUSE)
    time.advance(by: 1)
    #expect(delivered == ["togglePlayPause", "togglePlayPause"])
  }

  /// A seek held on a shared keyboard when the desktop takes its keys over ends at once, as it does
  /// when the device goes away: no seek is left running that no release will ever end.
  @Test func aSeekHeldOnTheKeyboardEndsWhenTheDesktopTakesItsKeys() {
    devices.plugIn(headset)
    harness.start()
    keyboard.press(InputCode.KEY_NEXTSONG)
    time.advance(by: 1)
    #expect(delivered == ["beginSeekingForward"])
    keys.setDesktop("GNOME (gsd-media-keys)")
    #expect(delivered == ["beginSeekingForward", "endSeekingForward"])
    keyboard.release(InputCode.KEY_NEXTSONG)
    time.advance(by: 1)
    #expect(delivered == ["beginSeekingForward", "endSeekingForward"])
  }
}

/// docs/design.md#one-press-one-action (sessions): while another user's session is in front,
/// responderd lets go of every device, and takes them back when the session returns; a seek
/// under way when it goes ends at once, as when the device goes away. logind is `FakeLogind`.
@Suite struct SessionKeysSeamTests: InMemoryServiceSuite {
  let harness: InMemoryService
  let system: InMemoryBus
  let logind: FakeLogind
  let devices = FakeInputDevices()
  let headset: FakeInputDevice

  init() throws {
    harness = try InMemoryService()
    system = InMemoryBus(scheduler: harness.time)
    logind = try FakeLogind(bus: system, scheduler: harness.time)
    try logind.addSession("3", active: true)
    headset = FakeInputDevice.usbHeadset(time: harness.time)
    devices.plugIn(headset)
    let session = harness.service.sessionComponent(
      systemBus: system.connect(), identity: .init(sessionID: "3", pid: 4242, uid: 1000), sessionBus: nil)
    harness.add(session)
    harness.add(
      harness.service.keysComponent(bus: nil, session: session, devices: devices, keyScheduler: harness.time))
    harness.start()
    settle()
  }

  @Test func anotherSessionInFrontEndsTheSeekAndLetsGoOfTheHeadsetUntilItReturns() throws {
    #expect(headset.isGrabbed)
    headset.click(InputCode.KEY_MEDIA)
    time.advance(by: 0.2)
    headset.press(InputCode.KEY_MEDIA)
    time.advance(by: 1)
    #expect(delivered == ["beginSeekingForward"])

    try logind.setActive("3", false)
    settle()
    #expect(delivered == ["beginSeekingForward", "endSeekingForward"])
    #expect(!headset.isGrabbed && !headset.isOpen)
    headset.release(InputCode.KEY_MEDIA)
    headset.click(InputCode.KEY_MEDIA)
    time.advance(by: 1)
    #expect(delivered == ["beginSeekingForward", "endSeekingForward"], "another user's presses")

    try logind.setActive("3", true)
    settle()
    #expect(headset.isGrabbed)
    headset.click(InputCode.KEY_MEDIA)
    time.advance(by: 1)
    #expect(delivered == ["beginSeekingForward", "endSeekingForward", "togglePlayPause"])
  }
}

extension InMemoryServiceSuite {
  /// The remote-control events the application was given, by their short names.
  fileprivate var delivered: [String] { records().filter { $0.type == .remoteControl }.map(\.subtype.name) }
}
