import InputCodes
import Testing

@Suite struct EvemuRecordingTests {
  @Test func readsHeaderAndEvents() throws {
    let text = """
      # EVEMU 1.3
      N: Intel HDA Headset Jack
      I: 0000 0000 0000 0000
      P: 00 00 00 00 00 00 00 00
      B: 00 0b 00 00 00 00 00 00 00
      A: 35 0 4095 0 0 0
      E: 0.000000 0001 00e2 0001
      E: 0.000000 0000 0000 0000
      E: 1.050000 0001 00e2 0000
      """
    let recording = try EvemuRecording(text: text)
    #expect(recording.identity.name == "Intel HDA Headset Jack")
    #expect(recording.events.count == 3)
    #expect(recording.events[2] == RawInputEvent(time: 1.05, type: 1, code: 0xe2, value: 0))
    #expect(recording.absoluteAxes[0x35]?.maximum == 4095)
  }

  @Test func badLinesNameTheirLine() {
    #expect(
      throws: EvemuRecording.ParseError(line: 2, message: "E: bad type, code or value in '0.1 zz 00 1'")
    ) {
      try EvemuRecording(text: "N: x\nE: 0.1 zz 00 1\n")
    }
    #expect(throws: EvemuRecording.ParseError.self) { try EvemuRecording(text: "E: 2.0 1 2 1\nE: 1.0 1 2 0") }
  }

  @Test func microsecondsAreAnIntegerCountAsEvemuWritesThem() throws {
    let recording = try EvemuRecording(text: "E: 2.050000 0001 00e2 1\nE: 3.5 0001 00e2 0\n")
    #expect(recording.events.map(\.time) == [2.05, 3.000005])
  }
}
