import EventTime
import InputCodes
import RemoteControl
import ResponderCore
import Testing

/// Drives a KeyInterpreter on virtual time and records what it emits as "subtype@time" strings
/// (times rounded to the microsecond).
final class Harness {
  let scheduler = VirtualScheduler()
  private(set) var emitted: [RemoteControlEmission] = []
  private(set) var interpreter: KeyInterpreter!

  static let headset = InputDeviceIdentity(
    name: "Logitech USB Headset H340 Consumer Control", bustype: 3, vendor: 0x046d, product: 0x0a38,
    version: 0x111, phys: "usb-0000:00:14.0-2/input3")
  static let jack = InputDeviceIdentity(name: "HDA Intel PCH Headphone Mic", phys: "ALSA")
  static let keyboard = InputDeviceIdentity(
    name: "Logitech K120 Keyboard", bustype: 3, vendor: 0x046d, product: 0xc31c,
    phys: "usb-0000:00:14.0-1/input0")

  /// When true, key events are handed over without moving virtual time first, as a live reader
  /// does when it reads events after their time.
  let lateDelivery: Bool

  init(
    settings: KeySettings = .standard, devices: [String: InputDeviceIdentity] = ["usb": headset],
    lateDelivery: Bool = false
  ) {
    self.lateDelivery = lateDelivery
    interpreter = KeyInterpreter(settings: settings, scheduler: scheduler) { [unowned self] in
      self.emitted.append($0)
    }
    for (source, identity) in devices.sorted(by: { $0.key < $1.key }) {
      interpreter.deviceAdded(source, identity: identity)
    }
  }

  /// Moves virtual time to `time` (firing due timers), then hands over the key event.
  func key(_ code: UInt16, _ value: KeyValue, at time: Seconds, device: String = "usb") {
    if !lateDelivery { scheduler.advance(to: time) }
    interpreter.key(code, value, at: time, from: device)
  }

  func press(_ code: UInt16, at time: Seconds, device: String = "usb") {
    key(code, .press, at: time, device: device)
  }

  func release(_ code: UInt16, at time: Seconds, device: String = "usb") {
    key(code, .release, at: time, device: device)
  }

  /// A press at `time` and a release `duration` later.
  func click(_ code: UInt16, at time: Seconds, duration: Seconds = 0.1, device: String = "usb") {
    press(code, at: time, device: device)
    release(code, at: time + duration, device: device)
  }

  /// Auto-repeat events every `period` from `start` while before `end`.
  func autoRepeat(
    _ code: UInt16, from start: Seconds, until end: Seconds, period: Seconds = 0.033, device: String = "usb"
  ) {
    var time = start
    while time < end {
      key(code, .autoRepeat, at: time, device: device)
      time += period
    }
  }

  func unplug(_ device: String = "usb", at time: Seconds) {
    if !lateDelivery { scheduler.advance(to: time) }
    interpreter.deviceRemoved(device, at: time)
  }

  func advance(to time: Seconds) { scheduler.advance(to: time) }

  /// Runs time on until every pending decision has been made.
  func finish() { scheduler.runUntilIdle() }

  /// What was emitted so far, as "subtype@time".
  var log: [String] { emitted.map { "\($0.subtype.name)@\(Self.format($0.timestamp))" } }

  static func format(_ time: Seconds) -> String {
    let micros = (time * 1_000_000).rounded()
    return "\(micros / 1_000_000)"
  }
}

let MEDIA = InputCode.KEY_MEDIA
let PLAYPAUSE = InputCode.KEY_PLAYPAUSE
let NEXT = InputCode.KEY_NEXTSONG
let PREVIOUS = InputCode.KEY_PREVIOUSSONG
let FASTFORWARD = InputCode.KEY_FASTFORWARD
let REWIND = InputCode.KEY_REWIND
let PLAYCD = InputCode.KEY_PLAYCD
let PAUSECD = InputCode.KEY_PAUSECD
let STOPCD = InputCode.KEY_STOPCD
let KEY_A: UInt16 = 30
let KEY_VOLUMEUP: UInt16 = 115

/// One thing a scenario does to the harness, as the method of the same name.
enum Step: Sendable {
  case click(UInt16, at: Seconds, duration: Seconds = 0.1, device: String = "usb")
  case press(UInt16, at: Seconds, device: String = "usb")
  case release(UInt16, at: Seconds, device: String = "usb")
  case autoRepeat(UInt16, from: Seconds, until: Seconds, period: Seconds = 0.033, device: String = "usb")
  case unplug(String = "usb", at: Seconds)
}

/// Keys pressed on the standard settings and what they make once every decision is made; its
/// name is the test case's.
struct Scenario: Sendable, CustomTestStringConvertible {
  let name: String
  let steps: [Step]
  let expected: [String]

  init(_ name: String, _ steps: [Step], makes expected: [String]) {
    self.name = name
    self.steps = steps
    self.expected = expected
  }

  var testDescription: String { name }

  /// What a fresh harness emits for the steps.
  func run() -> [String] { played().log }

  /// A fresh harness that took the steps and made every decision.
  func played() -> Harness {
    let h = Harness()
    for step in steps {
      switch step {
      case .click(let code, let time, let duration, let device):
        h.click(code, at: time, duration: duration, device: device)
      case .press(let code, let time, let device): h.press(code, at: time, device: device)
      case .release(let code, let time, let device): h.release(code, at: time, device: device)
      case .autoRepeat(let code, let start, let end, let period, let device):
        h.autoRepeat(code, from: start, until: end, period: period, device: device)
      case .unplug(let device, let time): h.unplug(device, at: time)
      }
    }
    h.finish()
    return h
  }
}
