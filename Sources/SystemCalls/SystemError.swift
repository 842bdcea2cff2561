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
