import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// Tells when a file (a server's unix socket) may have appeared, without polling: inotify on the
/// file's directory, or on its nearest existing ancestor while the directory itself is missing
/// (e.g. /run/user before the session starts), moving down as directories are created. Nothing
/// wakes up while the file stays away.
public final class FileAppearanceWatcher {
  /// The file waited for.
  public let path: String
  private let loop: EventLoop
  private let changed: () -> Void
  private var inotify: FileDescriptor?
  private var source: IOSource?
  private var watchedDirectory: String?

  /// Waits for `path`; `changed` runs on `loop` after each batch of changes in the watched
  /// directory, once the watch has moved to the nearest existing directory again.
  public init(path: String, loop: EventLoop, changed: @escaping () -> Void) {
    self.path = path
    self.loop = loop
    self.changed = changed
  }

  deinit { stop() }

  /// Whether a directory is watched (false when inotify could not be set up).
  public var isWatching: Bool { inotify != nil }

  /// Whether the file exists now.
  public var fileExists: Bool { access(path, F_OK) == 0 }

  /// Watches the deepest existing directory on the way to the file (nothing changes when that
  /// directory is watched already).
  public func start() {
    var directory = Self.parent(of: path)
    while directory != "/" && access(directory, F_OK) != 0 { directory = Self.parent(of: directory) }
    guard directory != watchedDirectory || inotify == nil else { return }
    stop()
    guard let fd = try? FileDescriptor.inotify() else { return }
    let mask = UInt32(IN_CREATE | IN_MOVED_TO | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF)
    guard (try? fd.addInotifyWatch(FilePath(directory), mask: mask)) != nil,
      let source = try? loop.register(
        fd: fd, events: .readable, handler: { [weak self] _ in self?.readEvents() })
    else {
      try? fd.close()
      return
    }
    inotify = fd
    self.source = source
    watchedDirectory = directory
  }

  /// Stops watching.
  public func stop() {
    source?.remove()
    source = nil
    try? inotify?.close()
    inotify = nil
    watchedDirectory = nil
  }

  /// The directory of `path` (`/` for a file at the root).
  public static func parent(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
    return String(path[..<slash])
  }

  private func readEvents() {
    guard let inotify else { return }
    var buffer = [UInt8](repeating: 0, count: 4096)
    var watchGone = false
    let gone = UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)
    while let count = try? buffer.withUnsafeMutableBytes({ try inotify.read(into: $0) }), count > 0 {
      // struct inotify_event: wd (4), mask (4), cookie (4), len (4), then len bytes of name.
      var offset = 0
      while offset + 16 <= count {
        let mask = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self) }
        let length = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self) }
        if mask & gone != 0 { watchGone = true }
        offset += 16 + Int(length)
      }
    }
    if watchGone { stop() }
    // A directory on the way may have appeared (or ours went away): watch the nearest one again.
    start()
    changed()
  }
}
