import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

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

/// A file `readRegularFile` refuses to read: not a regular file, or larger than its limit.
public struct FileRefusal: Error, CustomStringConvertible, Equatable, Sendable {
  /// Why, as a user reads it ("it is a FIFO (named pipe), not a regular file").
  public var reason: String
  public var description: String { reason }
}

/// Reads a whole regular file of at most `maximumSize` bytes, without ever blocking or reading
/// without bound: it is opened with `O_NONBLOCK` (a FIFO does not wait for a writer), examined
/// with `fstat` before anything is read (a FIFO, a device such as `/dev/zero`, a directory or a
/// socket is refused by its kind, a larger file by its size; a symlink is followed), and read to
/// at most `maximumSize` bytes even if it grows meanwhile. Throws `SystemError` when a call fails
/// and `FileRefusal` for a file it will not read.
public func readRegularFile(_ path: String, maximumSize: Int) throws -> [UInt8] {
  let filePath = FilePath(path)
  // What the path names is looked at before it is opened (opening some devices does something),
  // and what was opened again (the path may have been replaced in between).
  var status = stat()
  guard stat(path, &status) == 0 else { throw SystemError("stat", path: filePath, errno: .last) }
  try checkRegularFile(status, maximumSize: maximumSize)
  let descriptor = try FileDescriptor.openForReading(
    filePath, options: [.nonBlocking, FileDescriptor.OpenOptions(rawValue: O_NOCTTY)])
  defer { try? descriptor.close() }
  guard fstat(descriptor.rawValue, &status) == 0 else {
    throw SystemError("fstat", path: filePath, errno: .last)
  }
  try checkRegularFile(status, maximumSize: maximumSize)
  var bytes: [UInt8] = []
  // The file's size and a byte more (its end found by the first read), at most 64 KiB a read.
  var chunk = [UInt8](repeating: 0, count: min(max(Int(status.st_size) + 1, 512), 65536))
  while true {
    let count = try systemCall("read", path: filePath) {
      try chunk.withUnsafeMutableBytes { try descriptor.read(into: $0, retryOnInterrupt: true) }
    }
    if count == 0 { return bytes }
    bytes.append(contentsOf: chunk[0..<count])
    guard bytes.count <= maximumSize else {
      throw FileRefusal(
        reason: "it grew past the \(maximumSize) bytes such a file may have while it was read")
    }
  }
}

private func checkRegularFile(_ status: stat, maximumSize: Int) throws(FileRefusal) {
  let kind = status.st_mode & S_IFMT
  guard kind == S_IFREG else {
    throw FileRefusal(reason: "it is \(fileKindName(kind)), not a regular file")
  }
  guard Int(status.st_size) <= maximumSize else {
    throw FileRefusal(
      reason: "it is \(status.st_size) bytes long, more than the \(maximumSize) such a file may have")
  }
}

/// "a FIFO (named pipe)", "a character device", … for `st_mode & S_IFMT`.
private func fileKindName(_ kind: mode_t) -> String {
  switch kind {
  case S_IFIFO: "a FIFO (named pipe)"
  case S_IFCHR: "a character device"
  case S_IFBLK: "a block device"
  case S_IFDIR: "a directory"
  case S_IFSOCK: "a socket"
  default: "of an unknown kind"
  }
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
