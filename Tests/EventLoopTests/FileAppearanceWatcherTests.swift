import EventLoop
import Glibc
import SystemCalls
import Testing

/// FileAppearanceWatcher: a socket path whose directory does not exist yet is waited for with
/// inotify alone (no timer), down the directories as they are created, until the file appears.
@Suite struct FileAppearanceWatcherTests {
  @Test func aFileInADirectoryNotYetCreatedIsSeenWhenItAppears() throws {
    let root = FileManagerless.temporaryDirectory()
    defer { rmdir(root) }
    let directory = root + "/bus"
    let path = directory + "/socket"
    let loop = try EventLoop()
    var changes = 0
    let watcher = FileAppearanceWatcher(path: path, loop: loop) { changes += 1 }
    watcher.start()
    defer { watcher.stop() }
    #expect(watcher.isWatching)
    #expect(!watcher.fileExists)
    #expect(loop.scheduler.pendingCount == 0)

    #expect(mkdir(directory, 0o700) == 0)
    defer { rmdir(directory) }
    #expect(loop.run(until: { changes > 0 }, timeout: 5))
    #expect(!watcher.fileExists)

    try writeTextFile(path, "")
    defer { unlink(path) }
    let before = changes
    #expect(loop.run(until: { changes > before && watcher.fileExists }, timeout: 5))
    #expect(watcher.isWatching)
    #expect(loop.scheduler.pendingCount == 0)
  }

  @Test func theParentOfAPathIsItsDirectory() {
    #expect(FileAppearanceWatcher.parent(of: "/run/user/1000/bus") == "/run/user/1000")
    #expect(FileAppearanceWatcher.parent(of: "/bus") == "/")
  }
}
