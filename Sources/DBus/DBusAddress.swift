/// D-Bus address helpers.
public enum DBusAddress {
  /// Escapes a value for use in an address (`unix:path=` + escape(path)).
  public static func escape(_ value: String) -> String {
    var result = ""
    for byte in value.utf8 {
      let character = Character(Unicode.Scalar(byte))
      if (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
        || "-_/.\\*".utf8.contains(byte)
      {
        result.append(character)
      } else {
        let hex = Array("0123456789abcdef")
        result += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 0xF)])
      }
    }
    return result
  }

  /// The socket path of the first `unix:path=` entry of `address`, if any.
  public static func unixPath(of address: String) -> String? {
    for entry in address.split(separator: ";") {
      guard entry.hasPrefix("unix:") else { continue }
      for pair in entry.dropFirst(5).split(separator: ",") {
        let parts = pair.split(separator: "=", maxSplits: 1)
        if parts.count == 2, parts[0] == "path" { return unescape(String(parts[1])) }
      }
    }
    return nil
  }

  static func unescape(_ value: String) -> String {
    var bytes: [UInt8] = []
    var iterator = Array(value.utf8).makeIterator()
    while let byte = iterator.next() {
      if byte == UInt8(ascii: "%"), let high = iterator.next(), let low = iterator.next(),
        let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
      {
        bytes.append(value)
      } else {
        bytes.append(byte)
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}
