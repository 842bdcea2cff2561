import BenchmarkSupport
import DBusTestSupport
import SystemCalls

#if canImport(Glibc)
  import Glibc
#endif

/// What the package weighs: the two binaries stripped as the package has them,
/// the package itself when given, and responderd's resident memory 1.5 s after a start with no
/// devices.
struct SizeFigures {
  /// Bytes of `strip --strip-all` copies.
  var responderctl = 0
  var responderd = 0
  /// Bytes of the Debian package (`--package`), if given.
  var package: Int?
  var packagePath = ""
  /// KiB.
  var rssAtStart = 0
}

/// Strips copies of the built binaries, and starts responderd once with no devices.
func measureSize(bench: Bench, package: String?) throws -> SizeFigures {
  progress("size: the binaries stripped, the package, responderd's RSS at start")
  var figures = SizeFigures()
  func strippedSize(_ product: String) throws -> Int {
    let copy = bench.bus.directory + "/" + product + ".stripped"
    let strip = try ChildProcess(
      ["strip", "--strip-all", "-o", copy, try BuiltProducts.path(of: product)], stdout: .null,
      stderr: .inherit)
    guard ChildProcess.exitedSuccessfully(try strip.waitForExit(timeout: 60)) else {
      throw BenchmarkError("strip failed on \(product)")
    }
    return try fileSize(copy)
  }
  figures.responderctl = try strippedSize("responderctl")
  figures.responderd = try strippedSize("responderd")
  if let package {
    figures.package = try fileSize(package)
    figures.packagePath = package
  }
  let config = try bench.writeConfig("size.toml", bench.keysConfig)
  let responderd = try bench.startResponderd(config: config, testbed: false)
  defer { responderd.stop() }
  try responderd.waitForOutput("bus: owns org.responderd.Daemon1", timeout: 10 * bench.slowdown)
  bench.pass(1.5)
  try responderd.checkRunning()
  figures.rssAtStart = try processStatusKiB(responderd.pid, "VmRSS")
  return figures
}

private func fileSize(_ path: String) throws -> Int {
  var status = stat()
  guard stat(path, &status) == 0 else { throw BenchmarkError("\(path): \(String(cString: strerror(errno)))") }
  return Int(status.st_size)
}
