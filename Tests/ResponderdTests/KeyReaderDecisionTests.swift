import EvdevInput
import EventTime
import InputCodes
import RemoteControl
import ResponderCore
import ResponderdKit
import Testing

/// The evdev reader decides nothing: the key settings say which keys it reads and which devices it
/// owns, and the key interpreter above it turns its stream of mapped keys into events (issue 48,
/// item 3). No device is opened here.
@Suite struct KeyReaderDecisionTests {
  let settings = KeySettings.standard
  let headset = InputDeviceIdentity(name: "Logitech USB Headset H340 Consumer Control", bustype: 3)

  @Test func aUSBHeadsetsKeysAreReadForTheirMappedKeysAndOwned() {
    let decision = settings.decision(
      for: KeyDeviceCandidate(identity: headset, usbInterfaces: ":010100:010200:030000:"))
    #expect(decision.grab && !decision.isIgnored)
    #expect(decision.reasonCode == "headset-class")
    #expect(decision.explanation == "headset class: a key device of a USB audio device")
    #expect(decision.mappedKeys.isSuperset(of: [InputCode.KEY_PLAYPAUSE, InputCode.KEY_MEDIA]))
    #expect(!decision.mappedKeys.contains(InputCode.KEY_VOLUMEUP))
    #expect(!decision.mappedKeys.contains { InputCode.isTypingKey($0) })
  }

  @Test func aKeyboardIsSharedEvenOfAHeadsetClass() {
    let decision = settings.decision(
      for: KeyDeviceCandidate(identity: headset, usbInterfaces: ":010100:030101:", isKeyboard: true))
    #expect(!decision.grab && decision.reasonCode == "keyboard")
  }

  @Test func aDeviceARuleIgnoresHasNoKeyToRead() {
    var settings = settings
    settings.deviceRules.append(DeviceRule(match: DeviceMatch(name: "Logitech*"), ignore: true))
    let decision = settings.decision(for: KeyDeviceCandidate(identity: headset))
    #expect(decision.isIgnored)
  }

  @Test func theInterpreterTurnsTheReadersStreamIntoEvents() {
    let scheduler = VirtualScheduler()
    var made: [String] = []
    let interpreter = KeyInterpreter(settings: settings, scheduler: scheduler) { emission in
      made.append("\(emission.subtype.name)@\(emission.timestamp) \(emission.source)")
    }
    let source = "evdev:/dev/input/event7"
    let stream: [MappedKeyEvent] = [
      .deviceOpened(source: source, identity: headset),
      .key(
        RawInputEvent(time: 1, type: InputCode.EV_KEY, code: InputCode.KEY_PLAYPAUSE, value: 1),
        source: source),
      .key(
        RawInputEvent(time: 1.1, type: InputCode.EV_KEY, code: InputCode.KEY_PLAYPAUSE, value: 0),
        source: source),
      .key(
        RawInputEvent(time: 2, type: InputCode.EV_KEY, code: InputCode.KEY_FASTFORWARD, value: 1),
        source: source),
      .deviceClosed(source: source, at: 2.5),
    ]
    for event in stream { interpreter.handle(event) }
    #expect(
      made == [
        "togglePlayPause@1.0 \(source)", "beginSeekingForward@2.0 \(source)",
        "endSeekingForward@2.5 \(source)",
      ])
  }
}
