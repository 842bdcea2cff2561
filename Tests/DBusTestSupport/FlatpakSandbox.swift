import EventLoop
import SystemCalls

#if canImport(Glibc)
  import Glibc
#endif

/// The session bus as a Flatpak app sees it: xdg-dbus-proxy filtering a bus (`--filter`, and a
/// `--talk` permission per name given, as a manifest's `--talk-name`), and bwrap running the app
/// where the proxy's socket is the only session bus (`/run/flatpak/bus`, where Flatpak puts it):
/// the file system read-only, `/tmp`, `/run` and the real bus's directory empty, a pid namespace
/// of its own, a clean environment, and `/.flatpak-info` as Flatpak makes it.
public final class FlatpakSandbox {
  /// Where the proxy listens (outside the sandbox), in a directory of its own.
  public let socketPath: String
  public let proxy: ChildProcess
  private let directory: String
  private var infoPath: String { directory + "/flatpak-info" }
  private let hidden: [String]

  /// Why the sandbox tests cannot run here (bwrap or xdg-dbus-proxy missing), or nil.
  public static var missing: String? {
    for program in ["/usr/bin/bwrap", "/usr/bin/xdg-dbus-proxy"] where access(program, X_OK) != 0 {
      return "\(program) is not installed (scripts/deps test: bubblewrap, xdg-dbus-proxy)"
    }
    return nil
  }

  /// Starts the proxy on `bus` with `talk` permissions; returns once its socket exists (10 s at
  /// most).
  public init(bus: PrivateBus, talk: [String], loop: EventLoop) throws {
    var template = Array("/tmp/responderd-flatpak-XXXXXX".utf8CString)
    guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
      throw TestSupportError("mkdtemp failed (errno \(errno))")
    }
    directory = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    socketPath = directory + "/bus"
    hidden = [bus.directory]
    // What Flatpak puts at /.flatpak-info in every sandbox (how an app knows it is in one).
    try writeTextFile(directory + "/flatpak-info", "[Application]\nname=org.example.Sandboxed\n")
    proxy = try ChildProcess(
      ["/usr/bin/xdg-dbus-proxy", bus.address, socketPath, "--filter"] + talk.map { "--talk=\($0)" },
      inheritEnvironment: false, stdout: .null, stderr: .capture)
    var appeared = false
    let watcher = FileAppearanceWatcher(path: socketPath, loop: loop) { appeared = true }
    watcher.start()
    defer { watcher.stop() }
    guard loop.run(until: { appeared || watcher.fileExists || !proxy.isRunning }, timeout: 10),
      proxy.isRunning
    else {
      proxy.terminate()
      throw TestSupportError(
        "xdg-dbus-proxy did not make \(socketPath) in 10 s: \((try? proxy.readToEnd(timeout: 1)) ?? "")")
    }
  }

  deinit { stop() }

  /// Stops the proxy (the sandboxed app loses its bus) and removes its directory.
  public func stop() {
    proxy.terminate()
    PrivateBus.removeTree(directory)
  }

  /// `arguments` run inside the sandbox, as a command line for `ChildProcess` (bwrap first): the
  /// top-level directories of `/` bound read-only (its symbolic links, `/lib` and the like, made
  /// again), in a root of the sandbox's own, where `/.flatpak-info` can be.
  public func command(_ arguments: [String]) -> [String] {
    var root: [String] = []
    if let listing = opendir("/") {
      defer { closedir(listing) }
      while let entry = readdir(listing) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) {
          String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
        }
        guard !["", ".", "..", "tmp", "run", "proc", "dev", "sys"].contains(name) else { continue }
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/" + name, &buffer, buffer.count - 1)
        if count > 0 {
          let target = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
          root += ["--symlink", target, "/" + name]
        } else if entry.pointee.d_type == UInt8(DT_DIR) {
          root += ["--ro-bind", "/" + name, "/" + name]
        }
      }
    }
    // The checkout stays readable where it is, as a Flatpak's own files are in /app: a clone
    // under /tmp or /run (as CI may make) would otherwise be hidden by their new tmpfs.
    var checkout: [String] = []
    let path = String(String(#filePath).split(separator: "/Tests/DBusTestSupport/").first ?? "")
    if path.hasPrefix("/tmp/") || path.hasPrefix("/run/") { checkout = ["--ro-bind", path, path] }
    return ["/usr/bin/bwrap"] + root + [
      "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs", "/run",
    ]
      + checkout
      + hidden.flatMap { ["--tmpfs", $0] }
      + [
        "--bind", socketPath, "/run/flatpak/bus", "--ro-bind", infoPath, "/.flatpak-info", "--unshare-pid",
        "--die-with-parent", "--clearenv", "--setenv", "PATH", "/usr/bin:/bin", "--setenv",
        "DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/flatpak/bus", "--",
      ] + arguments
  }

}
