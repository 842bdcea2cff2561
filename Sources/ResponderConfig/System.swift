#if canImport(Glibc)
  import Glibc
#endif

/// The value of an environment variable.
public func environment(_ name: String) -> String? {
  getenv(name).map { String(cString: $0) }
}

/// Whether a path exists.
public func fileExists(_ path: String) -> Bool {
  access(path, F_OK) == 0
}

/// An error reading or writing a file, with errno's text.
public struct FileError: Error, CustomStringConvertible {
  public var path: String
  public var reason: String
  public var description: String { "\(path): \(reason)" }
}

/// Reads a whole file as UTF-8 text.
public func readTextFile(_ path: String) throws -> String {
  let fd = open(path, O_RDONLY | O_CLOEXEC)
  guard fd >= 0 else { throw FileError(path: path, reason: String(cString: strerror(errno))) }
  defer { close(fd) }
  var bytes: [UInt8] = []
  var buffer = [UInt8](repeating: 0, count: 65536)
  while true {
    let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    if n < 0 {
      if errno == EINTR { continue }
      throw FileError(path: path, reason: String(cString: strerror(errno)))
    }
    if n == 0 { break }
    bytes.append(contentsOf: buffer[0..<n])
  }
  return String(decoding: bytes, as: UTF8.self)
}

/// Writes text to a file, replacing it.
public func writeTextFile(_ path: String, _ text: String) throws {
  let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
  guard fd >= 0 else { throw FileError(path: path, reason: String(cString: strerror(errno))) }
  defer { close(fd) }
  if let failure = writeAll(text, to: fd) {
    throw FileError(path: path, reason: String(cString: strerror(failure)))
  }
}

/// Writes text to a file descriptor (stdout = 1, stderr = 2), whole; errors are ignored.
public func writeText(_ text: String, to fd: Int32) {
  _ = writeAll(text, to: fd)
}

/// Writes all of `text` to `fd`, again after interruptions; the errno of a failure, if any.
private func writeAll(_ text: String, to fd: Int32) -> Int32? {
  var bytes = Array(text.utf8)
  var offset = 0
  while offset < bytes.count {
    let n = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
    if n < 0 {
      if errno == EINTR { continue }
      return errno
    }
    offset += n
  }
  return nil
}
