extension String {
  /// The string as a log line shows text that came from the bus (an object path, a bus name, an
  /// error message of a peer): at most `loggableLimit` characters, a longer one cut with its length
  /// said, and control characters (a newline could forge a log line) written as `?`.
  public var loggable: String {
    var out = ""
    var count = 0
    for character in self {
      if count == String.loggableLimit {
        return out + "… (\(self.count) characters)"
      }
      out.append(
        character.isNewline || character.asciiValue.map { $0 < 0x20 || $0 == 0x7f } == true ? "?" : character)
      count += 1
    }
    return out
  }

  /// How much of a string from the bus a log line shows.
  public static let loggableLimit = 200
}
