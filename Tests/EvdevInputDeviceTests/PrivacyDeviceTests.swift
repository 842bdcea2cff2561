import DeviceTestSupport
import EventLoop
import EventTime
import InputCodes
import RemoteControl
import ResponderCore
import Testing

@testable import EvdevInput

/// US layout key codes of the characters typed.
let typedKeys: [Character: UInt16] = [
  "q": 16, "w": 17, "e": 18, "r": 19, "t": 20, "y": 21, "u": 22, "i": 23, "o": 24, "p": 25, "a": 30, "s": 31,
  "d": 32, "f": 33, "g": 34, "h": 35, "j": 36, "k": 37, "l": 38, "z": 44, "x": 45, "c": 46, "v": 47, "b": 48,
  "n": 49, "m": 50, " ": 57, ",": 51, ".": 52,
]
let KEY_LEFTSHIFT: UInt16 = 42
let KEY_ENTER: UInt16 = 28

/// The HID usage of a key as MSC_SCAN reports it (0x70000 + usage), distinctive numbers to look for.
func scanCode(_ code: UInt16) -> Int32 { 0x70000 + Int32(code) + 1000 }

/// Types `text` on the keyboard (shift for capitals, scan codes, one auto-repeated key, the caps
/// lock LED) from `start`, 60 ms per key; returns the time after the last key. `afterKey` runs
/// after each key is written (the emulated device is a pty with a small buffer: a test lets the
/// reader catch up there).
func type(
  _ text: String, on keyboard: EmulatedDevice, in tb: Testbed, from start: Seconds,
  afterKey: (Seconds) throws -> Void = { _ in }
) throws -> Seconds {
  var time = start
  for character in text {
    let lower = Character(character.lowercased())
    guard let code = typedKeys[lower] else { continue }
    var events: [RawInputEvent] = []
    func key(_ code: UInt16, _ value: Int32) {
      events.append(RawInputEvent(time: time, type: EV_MSC, code: 4, value: scanCode(code)))
      events.append(RawInputEvent(time: time, type: InputCode.EV_KEY, code: code, value: value))
      events.append(RawInputEvent(time: time, type: 0, code: 0, value: 0))
    }
    if character.isUppercase { key(KEY_LEFTSHIFT, 1) }
    key(code, 1)
    if character == "l" {
      time += 0.25
      key(code, 2)  // auto-repeat
    }
    time += 0.03
    key(code, 0)
    if character.isUppercase { key(KEY_LEFTSHIFT, 0) }
    time += 0.03
    try tb.write(keyboard, events)
    try afterKey(time)
  }
  try tb.write(
    keyboard,
    [
      RawInputEvent(time: time, type: EV_LED, code: 1, value: 1),
      RawInputEvent(time: time, type: InputCode.EV_KEY, code: KEY_ENTER, value: 1),
      RawInputEvent(time: time, type: 0, code: 0, value: 0),
      RawInputEvent(time: time + 0.01, type: InputCode.EV_KEY, code: KEY_ENTER, value: 0),
      RawInputEvent(time: time + 0.01, type: 0, code: 0, value: 0),
    ])
  return time + 0.1
}

extension EvdevInputDeviceTests {
  @Suite("Privacy: only mapped keys leave EvdevInput")
  struct PrivacyDeviceTests {
    static let sentence = "The quick brown fox jumps over the lazy dog, my password is hello."

    @Test("a keyboard types a sentence between media keys: none of it is read, logged or dispatched")
    func typedSentenceLeavesNoTrace() throws {
      let tb = try Testbed()
      let keyboard = try tb.add("keyboard")
      let p = try KeyPipeline.started()
      #expect(p.input.openDevices.first?.keys.count == 9)

      // After each key, an auto-repeat of a mapped key (which makes no event) tells when the
      // reader has caught up.
      var mappedWritten = 0
      let catchUp: (Seconds) throws -> Void = { time in
        try tb.key(keyboard, KEY_MEDIA, 2, at: time)
        mappedWritten += 1
        try p.waitForKeys(mappedWritten)
      }
      var time = try type("Hello", on: keyboard, in: tb, from: 50.0, afterKey: catchUp)
      try tb.click(keyboard, KEY_NEXTSONG, at: time)
      mappedWritten += 2
      time = try type(Self.sentence, on: keyboard, in: tb, from: time + 0.2, afterKey: catchUp)
      try tb.click(keyboard, KEY_PLAYPAUSE, at: time)
      mappedWritten += 2
      try p.waitForKeys(mappedWritten)
      p.scheduler.runUntilIdle()

      // Output and dispatch records: the two media keys, nothing else.
      #expect(p.player.received.map { $0.prefix { $0 != "@" } } == ["nextTrack", "togglePlayPause"])
      #expect(p.records.count == 2)
      #expect(p.records.allSatisfy { $0.type == .remoteControl })
      // Nothing else was read at all: the media keys and the catch-up repeats.
      #expect(p.keysRead.count == mappedWritten)
      let codesRead = Set(
        p.keysRead.compactMap { event -> UInt16? in
          if case .key(_, let code, _) = event { return code }
          return nil
        })
      #expect(codesRead == [UInt16(KEY_MEDIA), UInt16(KEY_NEXTSONG), UInt16(KEY_PLAYPAUSE)])
      #expect(mappedWritten == 4 + "Hello".count + Self.sentence.count)

      // Logs at trace level: the device is named, mapped keys may be, typed keys never.
      let logs = p.logs.all
      #expect(!logs.isEmpty)
      #expect(logs.contains { $0.contains("KEY_NEXTSONG down") })
      let mappedNames = Set(
        KeySettings.standard.profile(for: InputDeviceIdentity()).mappedKeys.map(InputCode.keyName))
      for line in logs {
        for token in line.split(whereSeparator: { !$0.isLetter && !$0.isNumber && $0 != "_" })
        where token.hasPrefix("KEY_") || token.hasPrefix("BTN_") {
          #expect(mappedNames.contains(String(token)), "log line names an unmapped key: \(line)")
        }
        for code in Set(typedKeys.values).union([KEY_LEFTSHIFT, KEY_ENTER]) {
          #expect(!line.contains("\(scanCode(code))"), "log line holds a scan code: \(line)")
          #expect(!line.contains("KEY_\(code)"), "log line names a typed key: \(line)")
        }
        #expect(!line.lowercased().contains("password") && !line.contains("MSC") && !line.contains("LED"))
      }
      let everything = (logs + p.records.map(\.description) + p.player.received).joined(separator: "\n")
      for word in ["quick", "brown", "hello", "Hello", "lazy"] { #expect(!everything.contains(word)) }
    }

    @Test("libevdev itself drops unmapped events: a reader that accepts everything gets only mapped keys")
    func libevdevDropsUnmapped() throws {
      let tb = try Testbed()
      let (keyboard, device) = try tb.addOpened("keyboard")
      defer { device.close() }
      let filter = MappedKeyFilter(keys: KeySettings.standard.profile(for: device.identity).mappedKeys)
      filter.restrict(device)
      #expect(!device.has(type: EV_MSC) && !device.has(type: EV_LED))
      #expect(!device.has(type: InputCode.EV_KEY, code: 30))
      #expect(device.has(type: InputCode.EV_KEY, code: KEY_MEDIA))

      let end = try type("Secret words", on: keyboard, in: tb, from: 1.0)
      try tb.key(keyboard, KEY_MEDIA, 1, at: end)
      let loop = try EventLoop()
      var events: [RawInputEvent] = []
      try loop.register(fd: device.fd, events: .readable) { _ in
        _ = device.read(accept: { _, _ in true }) { events += $0.events }
      }
      #expect(loop.run(until: { !events.isEmpty }, timeout: 5))
      #expect(events.map(\.code) == [KEY_MEDIA])
      #expect(events.map(\.type) == [InputCode.EV_KEY])
    }
  }
}
