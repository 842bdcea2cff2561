import DBusTestSupport
import SystemCalls

#if canImport(Glibc)
  import Glibc
#endif

/// The C helpers of `Tests/Fixtures/wayland`, built from source at their first use: the
/// protocol code is generated with wayland-scanner from the XML Debian ships
/// (wayland-protocols' xdg-shell, plasma-wayland-protocols' fake-input), then compiled with `cc`
/// against libwayland-client (libwayland-dev). Built once per build directory, again when the
/// source is newer than the program.
public enum WaylandHelper {
  /// The helpers and the protocol XML each needs.
  static let protocols: [String: (String, String)?] = [
    "wl_touch_probe": ("xdg-shell", "/usr/share/wayland-protocols/stable/xdg-shell/xdg-shell.xml"),
    "kwin_fake_input": ("fake-input", "/usr/share/plasma-wayland-protocols/fake-input.xml"),
    // Declares its protocol itself (Debian ships no XML of it); needs xkbcommon for its keymap.
    "phoc_virtual_keyboard": nil,
  ]
  /// The libraries each helper links with (pkg-config names).
  static let libraries = ["phoc_virtual_keyboard": ["wayland-client", "xkbcommon"]]

  /// The path of the built helper `name` (`wl_touch_probe`, `kwin_fake_input`), building it first
  /// when needed.
  public static func path(of name: String) throws -> String {
    guard let entry = protocols[name] else { throw TestSupportError("no Wayland helper \(name)") }
    let source = HeadlessDesktop.fixture(name + ".c")
    let folder = BuiltProducts.directory + "/wayland-helpers"
    let program = folder + "/" + name
    if modified(program) > modified(source) { return program }
    mkdir(folder, 0o755)
    // Built under a name of its own, then renamed: tests building at once never see half a file.
    let work = try makeTemporaryDirectory("build", in: folder)
    defer { PrivateBus.removeTree(work) }
    var sources = [source]
    if let (prefix, xml) = entry {
      for (mode, output) in [
        ("client-header", "\(prefix)-client-protocol.h"), ("private-code", "\(prefix)-protocol.c"),
      ] {
        try run(["wayland-scanner", mode, xml, work + "/" + output])
      }
      sources.append(work + "/\(prefix)-protocol.c")
    }
    let flags = try run(["pkg-config", "--cflags", "--libs"] + (libraries[name] ?? ["wayland-client"]))
      .split(whereSeparator: \.isWhitespace).map(String.init)
    try run(["cc", "-O1", "-Wall", "-I", work, "-o", work + "/" + name] + sources + flags)
    guard rename(work + "/" + name, program) == 0 else {
      throw TestSupportError("rename to \(program): errno \(errno)")
    }
    return program
  }

  @discardableResult
  private static func run(_ arguments: [String]) throws -> String {
    let result = try ChildProcess.runSeparately(arguments, timeout: 120)
    guard result.status == 0 else {
      throw TestSupportError(
        "\(arguments.joined(separator: " ")) failed (install libwayland-dev, libxkbcommon-dev, wayland-protocols, plasma-wayland-protocols: scripts/deps test): \(result.stderr)"
      )
    }
    return result.stdout
  }

  /// The modification time of `path` in seconds (0 when it is missing).
  private static func modified(_ path: String) -> Double {
    var info = stat()
    guard stat(path, &info) == 0 else { return 0 }
    return Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
  }
}
