import BenchmarkSupport
import DBus
import DBusTestSupport
import EventLoop
import SystemCalls
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// A real MPRIS player: mpv with mpv-mpris on the private bus, paused on a long file, with its
/// JSON IPC socket observed for its own pause changes (the end point of a press: mpv-mpris emits
/// PlaybackStatus only from a 100 ms timer).
final class Player {
  let process: ChildProcess
  let ipcPath: String
  /// Every change of mpv's `pause` property, as seen on the IPC socket (the time it was read).
  private(set) var pauseChanges: [(time: Double, paused: Bool)] = []
  /// The current value of `pause` (nil until the first answer).
  private(set) var paused: Bool?
  /// The IPC socket, once connected.
  private var socket: FileDescriptor?
  private var source: IOSource?
  private var pending: [UInt8] = []
  private let loop: EventLoop

  init(audio: String, ipcPath: String, bus: PrivateBus, loop: EventLoop) throws {
    self.ipcPath = ipcPath
    self.loop = loop
    process = try ChildProcess(
      [
        "mpv", "--no-config", "--idle=yes", "--ao=null", "--vo=null", "--script=/usr/lib/mpv-mpris/mpris.so",
        "--no-terminal", "--pause", "--input-ipc-server=\(ipcPath)", audio,
      ], environment: bus.environment.merging(["LD_PRELOAD": ""]) { $1 }, stdout: .null, stderr: .null)
  }

  deinit {
    source?.remove()
    try? socket?.close()
    process.terminate()
  }

  /// Connects to the IPC socket (mpv creates it while starting) and observes `pause`; returns once
  /// the first value came.
  func observePause(timeout: Double) throws {
    let deadline = monotonicNow() + timeout
    while socket == nil {
      socket = try connectUnixSocket(ipcPath)
      if socket != nil { break }
      guard process.isRunning else { throw BenchmarkError("mpv exited while starting") }
      guard monotonicNow() < deadline else {
        throw BenchmarkError("mpv's IPC socket \(ipcPath) did not appear")
      }
      loop.run(until: { false }, timeout: 0.02)  // mpv is starting: bounded polling for its socket
    }
    guard let socket else { return }
    source = try loop.register(fd: socket, events: .readable) { [weak self] _ in self?.readEvents() }
    let command = "{\"command\":[\"observe_property\",1,\"pause\"]}\n"
    _ = try? socket.writeAll(bytes: command.utf8)
    guard loop.run(until: { paused != nil }, timeout: max(0.1, deadline - monotonicNow())) else {
      throw BenchmarkError("mpv did not report its pause state over IPC")
    }
  }

  private func readEvents() {
    guard let socket else { return }
    let now = monotonicNow()
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let count: Int
      do {
        count = try buffer.withUnsafeMutableBytes { try socket.read(into: $0) }
      } catch Errno.resourceTemporarilyUnavailable {
        break
      } catch {
        count = 0
      }
      if count == 0 {
        source?.remove()
        source = nil
        break
      }
      pending += buffer[..<count]
      if count < buffer.count { break }
    }
    while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
      let line = String(decoding: pending[..<newline], as: UTF8.self)
      pending.removeSubrange(...newline)
      guard line.contains("\"property-change\""), line.contains("\"name\":\"pause\"") else { continue }
      let value = line.contains("\"data\":true")
      if paused != nil { pauseChanges.append((now, value)) }
      paused = value
    }
  }
}

/// A connected, non-blocking unix stream socket; nil when nobody listens there (yet).
func connectUnixSocket(_ path: String) throws -> FileDescriptor? {
  let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
  guard fd >= 0 else { throw SystemError("socket", errno: .last) }
  var address = sockaddr_un()
  address.sun_family = sa_family_t(AF_UNIX)
  let bytes = Array(path.utf8)
  guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
    close(fd)
    throw BenchmarkError("socket path too long: \(path)")
  }
  withUnsafeMutableBytes(of: &address.sun_path) { raw in
    raw.copyBytes(from: bytes)
    raw[bytes.count] = 0
  }
  let result = withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
      connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
    }
  }
  guard result == 0 else {
    close(fd)
    return nil
  }
  _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
  return FileDescriptor(rawValue: fd)
}
