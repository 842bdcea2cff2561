import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// A failed system or library call: what was called, the file it was about (when there is one)
/// and swift-system's `Errno`. Printed as "path: call: reason" or "call: reason", the reason being
/// strerror's text.
public struct SystemError: Error, CustomStringConvertible, Equatable, Sendable {
  /// The call, as a user reads it ("open", "epoll_ctl(ADD)", "read iio:device0 raw").
  public var call: String
  /// The file or device the call was about.
  public var path: FilePath?
  public var errno: Errno

  public init(_ call: String, path: FilePath? = nil, errno: Errno) {
    self.call = call
    self.path = path
    self.errno = errno
  }

  public var description: String {
    guard let path else { return "\(call): \(errno)" }
    return "\(path): \(call): \(errno)"
  }
}

extension Errno {
  /// The calling thread's errno, as a C call just left it (swift-system keeps its own accessor
  /// internal).
  public static var last: Errno { Errno(rawValue: Glibc.errno) }
}

/// Runs swift-system calls (or the Linux wrappers of this module) and names `call` and `path` in
/// the error they throw.
@discardableResult
public func systemCall<Result>(_ call: String, path: FilePath? = nil, _ body: () throws -> Result)
  throws(SystemError) -> Result
{
  do {
    return try body()
  } catch {
    // swift-system's calls and the wrappers here throw only Errno.
    throw SystemError(call, path: path, errno: error as? Errno ?? .ioError)
  }
}

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

/// Reads a whole file as UTF-8 text; the error names the call ("open", "read") and the file.
public func readTextFile(_ path: String) throws(SystemError) -> String {
  let path = FilePath(path)
  let descriptor = try FileDescriptor.openForReading(path)
  defer { try? descriptor.close() }
  let bytes = try systemCall("read", path: path) { try descriptor.readToEnd() }
  return String(decoding: bytes, as: UTF8.self)
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
