import DBus
import Testing

/// Text from the bus is capped in logs (issue 16: an 800 KB object path was logged in full, twice).
@Suite struct LoggableTextTests {
  @Test func longTextIsCutWithItsLengthSaid() {
    let path = "/" + String(repeating: "a/", count: 400_000)
    let shown = path.loggable
    #expect(shown.hasPrefix(String(path.prefix(String.loggableLimit))))
    #expect(shown.hasSuffix("… (800001 characters)"))
    #expect(shown.count < String.loggableLimit + 30)
  }

  @Test func shortTextIsKeptAndControlCharactersCannotForgeLines() {
    #expect(":1.42".loggable == ":1.42")
    #expect("x\ninfo: forged\r\u{1b}[2J".loggable == "x?info: forged??[2J")
  }
}
