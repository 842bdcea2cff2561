import SystemPackage

extension FileDescriptor {
  /// Opens `path` read-only and close-on-exec, again after interruptions.
  public static func openForReading(_ path: FilePath, options: OpenOptions = []) throws(SystemError)
    -> FileDescriptor
  {
    try systemCall("open", path: path) {
      try FileDescriptor.open(path, .readOnly, options: options.union(.closeOnExec))
    }
  }

  /// Reads until the end of the file (again after interruptions): the whole content.
  public func readToEnd() throws(Errno) -> [UInt8] {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      let count: Int
      do {
        count = try chunk.withUnsafeMutableBytes { try read(into: $0) }
      } catch {
        throw error as? Errno ?? .ioError
      }
      if count == 0 { return bytes }
      bytes.append(contentsOf: chunk[0..<count])
    }
  }

  /// Writes all of `bytes`, again after interruptions and short writes.
  public func writeAll(bytes: some Sequence<UInt8>) throws(Errno) {
    do {
      _ = try writeAll(bytes)
    } catch {
      throw error as? Errno ?? .ioError
    }
  }
}

/// Reads a whole file; the error names the call ("open", "read") and the file.
public func readFile(_ path: String) throws(SystemError) -> [UInt8] {
  let path = FilePath(path)
  let descriptor = try FileDescriptor.openForReading(path)
  defer { try? descriptor.close() }
  return try systemCall("read", path: path) { try descriptor.readToEnd() }
}

/// Reads a whole file as UTF-8 text (invalid sequences become U+FFFD); the error names the call
/// ("open", "read") and the file.
public func readTextFile(_ path: String) throws(SystemError) -> String {
  String(decoding: try readFile(path), as: UTF8.self)
}

/// Writes text to a descriptor (`.standardOutput`, `.standardError`), whole; errors are ignored.
public func writeText(_ text: String, to descriptor: FileDescriptor) {
  try? descriptor.writeAll(bytes: text.utf8)
}

/// Writes text to a file, replacing it (created with mode 0644).
public func writeTextFile(_ path: String, _ text: String) throws(SystemError) {
  let path = FilePath(path)
  let descriptor = try systemCall("open", path: path) {
    try FileDescriptor.open(
      path, .writeOnly, options: [.create, .truncate, .closeOnExec],
      permissions: [.ownerReadWrite, .groupRead, .otherRead])
  }
  defer { try? descriptor.close() }
  try systemCall("write", path: path) { try descriptor.writeAll(bytes: text.utf8) }
}
