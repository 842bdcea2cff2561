import EventLoop
import Glibc
import SystemCalls
import SystemPackage
import Testing

/// The system-call layer: errors name the call and the file, and the Linux wrappers behave as
/// the calls they wrap.
@Suite struct SystemCallTests {
  @Test func aFileThatIsNotThereNamesTheFileTheCallAndTheReason() {
    #expect {
      _ = try readTextFile("/nonexistent/responderd.toml")
    } throws: { error in
      "\(error)" == "/nonexistent/responderd.toml: open: No such file or directory"
        && (error as? SystemError)?.errno == .noSuchFileOrDirectory
    }
  }

  @Test func aDirectoryCannotBeReadAsText() {
    #expect {
      _ = try readTextFile("/")
    } throws: { error in
      "\(error)" == "/: read: Is a directory"
    }
  }

  @Test func aCallWithoutAFileNamesTheCall() {
    #expect(
      "\(SystemError("epoll_ctl(ADD)", errno: .badFileDescriptor))" == "epoll_ctl(ADD): Bad file descriptor")
  }

  @Test func textWrittenToAFileReadsBackWhole() throws {
    let directory = FileManagerless.temporaryDirectory()
    defer { rmdir(directory) }
    let path = directory + "/text"
    defer { unlink(path) }
    let text = String(repeating: "é and a line\n", count: 10_000)  // more than one read's chunk
    try writeTextFile(path, text)
    #expect(try readTextFile(path) == text)
  }

  @Test func anEventFDCountsWhatIsWrittenAndIsEmptyAfterARead() throws {
    let counter = try FileDescriptor.eventFD()
    defer { try? counter.close() }
    #expect(try counter.readCounter() == nil)
    try counter.writeCounter(2)
    try counter.writeCounter(3)
    #expect(try counter.readCounter() == 5)
    #expect(try counter.readCounter() == nil)
  }

  @Test func inotifyReportsAFileCreatedInAWatchedDirectory() throws {
    let directory = FileManagerless.temporaryDirectory()
    defer { rmdir(directory) }
    let watch = try FileDescriptor.inotify()
    defer { try? watch.close() }
    try watch.addInotifyWatch(FilePath(directory), mask: UInt32(IN_CREATE))
    var buffer = [UInt8](repeating: 0, count: 4096)
    #expect(throws: Errno.resourceTemporarilyUnavailable) {
      _ = try buffer.withUnsafeMutableBytes { try watch.read(into: $0) }
    }
    try writeTextFile(directory + "/new", "")
    defer { unlink(directory + "/new") }
    let count = try buffer.withUnsafeMutableBytes { try watch.read(into: $0) }
    #expect(count >= 16)
  }

  @Test func watchingAMissingDirectoryFailsWithItsErrno() throws {
    let watch = try FileDescriptor.inotify()
    defer { try? watch.close() }
    #expect(throws: Errno.noSuchFileOrDirectory) {
      try watch.addInotifyWatch("/nonexistent/directory", mask: UInt32(IN_CREATE))
    }
  }
}

/// A fresh directory under $TMPDIR (or /tmp), without Foundation.
enum FileManagerless {
  static func temporaryDirectory() -> String {
    let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
    var template = Array((base + "/responderd-test-XXXXXX").utf8CString)
    _ = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}
