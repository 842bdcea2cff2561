import BenchmarkSupport
import CBenchmarkShims
import DBusTestSupport
import DeviceTestSupport
import EventLoop
import SystemCalls
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// A child process whose stdout and stderr (merged) are collected while the loop runs.
final class LoggedProcess {
  let name: String
  let process: ChildProcess
  /// What the process wrote so far (the last megabyte of it).
  private(set) var output = ""
  private var source: IOSource?
  private let loop: EventLoop

  init(_ name: String, _ arguments: [String], environment: [String: String], loop: EventLoop) throws {
    self.name = name
    self.loop = loop
    process = try ChildProcess(arguments, environment: environment, stdout: .capture, stderr: .capture)
    source = try loop.register(fd: process.outputDescriptor, events: .readable) { [weak self] _ in
      self?.readOutput()
    }
  }

  deinit {
    source?.remove()
    process.terminate()
  }

  var pid: pid_t { process.pid }

  private func readOutput() {
    let open = process.readAvailable()
    output += process.takeBufferedOutput()
    if output.utf8.count > 1 << 20 { output = String(output.suffix(1 << 19)) }
    if !open {
      source?.remove()
      source = nil
    }
  }

  /// Runs the loop until the output contains `text`; throws (with the output) after `timeout` s
  /// or when the process exits first.
  func waitForOutput(_ text: String, timeout: Double) throws {
    let found = loop.run(until: { output.contains(text) || !process.isRunning }, timeout: timeout)
    readOutput()
    guard found, output.contains(text) else {
      throw BenchmarkError(
        "\(name) did not say '\(text)' within \(timeout) s\(process.isRunning ? "" : " (it exited)"); it said:\n\(output)"
      )
    }
  }

  /// Throws with the output when the process has exited.
  func checkRunning() throws {
    guard process.isRunning else {
      readOutput()
      throw BenchmarkError("\(name) exited (status \(process.exitStatus ?? -1)); it said:\n\(output)")
    }
  }

  /// SIGTERM, and reaped (SIGKILL after 5 s).
  func stop() {
    process.terminate()
    readOutput()
    source?.remove()
    source = nil
  }
}

/// Makes this process the reaper of orphaned descendants (a thd child whose parent was stopped).
func becomeSubreaper() {
  if bench_become_subreaper() != 0 {
    writeText("EndToEnd: warning: cannot become a child subreaper (\(Errno.last))\n", to: .standardError)
  }
}

/// Kills and reaps every remaining child of this process (orphans adopted as subreaper), bounded.
func reapRemainingChildren() {
  let me = getpid()
  for _ in 0..<20 {
    var children: [pid_t] = []
    if let dir = opendir("/proc") {
      while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
          String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        guard let pid = pid_t(name), let stat = try? readTextFile("/proc/\(pid)/stat"),
          let close = stat.lastIndex(of: ")")
        else { continue }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        if fields.count > 1, pid_t(fields[1]) == me { children.append(pid) }
      }
      closedir(dir)
    }
    if children.isEmpty { return }
    for pid in children {
      kill(pid, SIGKILL)
      var status: Int32 = 0
      waitpid(pid, &status, 0)
    }
  }
}

/// Progress, on stderr (the table goes to stdout).
func progress(_ text: String) { writeText("EndToEnd: \(text)\n", to: .standardError) }
