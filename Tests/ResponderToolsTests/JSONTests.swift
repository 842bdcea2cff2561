import ResponderTools
import Testing
import TouchScenes

@Suite struct JSONTests {
  @Test func stringsEscapeQuotesBackslashesAndControlCharacters() {
    #expect(JSON.quote("say \"hi\"\\") == #""say \"hi\"\\""#)
    #expect(JSON.quote("a\nb\rc\td") == #""a\nb\rc\td""#)
    #expect(JSON.quote("\u{01}\u{1F}") == #""\u0001\u001f""#)
    #expect(JSON.quote("é ✓") == "\"é ✓\"")
  }

  @Test func numbers() {
    #expect(JSON.number(3).text == "3")
    #expect(JSON.number(-2.5).text == "-2.5")
    #expect(JSON.number(.nan).text == "null")
    #expect(formatNumber(5.1000004, decimals: 6) == "5.1")
    #expect(formatNumber(-0.0000001, decimals: 6) == "0")
    #expect(formatNumber(150, decimals: 3) == "150")
  }

  @Test func layouts() {
    let value = JSON.object([
      ("a", .array([.number(1), .bool(true), .null])), ("b", .string("x")), ("c", .raw("1.50")),
    ])
    #expect(value.text == #"{"a": [1, true, null], "b": "x", "c": 1.50}"#)
    #expect(value.text(.compact) == #"{"a":[1,true,null],"b":"x","c":1.50}"#)
    #expect(value.text(JSON.Layout(comma: ", ", colon: ":")) == #"{"a":[1, true, null], "b":"x", "c":1.50}"#)
  }
}
