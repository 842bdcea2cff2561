import DBusTestSupport
import SystemCalls

/// What a screenshot's PNG header says: its size in pixels (the IHDR chunk), and the file's length.
public struct PNGHeader: CustomStringConvertible {
  public let width: Int
  public let height: Int
  public let bytes: Int

  /// Reads `path`; throws when it is not a PNG.
  public init(path: String) throws {
    let data = try readFile(path)
    guard data.count > 24, data.starts(with: [0x89, 0x50, 0x4e, 0x47]) else {
      throw TestSupportError("\(path) is not a PNG (\(data.count) bytes)")
    }
    func big(_ at: Int) -> Int { data[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
    width = big(16)
    height = big(20)
    bytes = data.count
  }

  public var description: String { "PNG \(width)x\(height), \(bytes) bytes" }
}
