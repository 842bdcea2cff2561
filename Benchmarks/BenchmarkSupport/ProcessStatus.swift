import SystemCalls

#if canImport(Glibc)
  import Glibc
#endif

/// A size field of `/proc/PID/status` (`VmRSS`, `RssAnon`, ...) in KiB.
public func processStatusKiB(_ pid: pid_t, _ field: String) throws -> Int {
  let text = try readTextFile("/proc/\(pid)/status")
  guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }),
    let kib = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
  else { throw BenchmarkError("no \(field) in /proc/\(pid)/status") }
  return kib
}

/// The directory of this executable (where `swift build` put responderd and responderctl too).
public func binDirectory() -> String {
  var buffer = [CChar](repeating: 0, count: 4096)
  let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
  let path = String(decoding: buffer[0..<max(0, n)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  return String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
}
