import BenchmarkSupport
import DBus
import EventLoop
import SystemCalls
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// `EndToEnd --relay DEVICE PLAYER`: the floor with the device in the path. A process of its own
/// (as responderd is) reads DEVICE with plain read(2) of struct input_event and, on a KEY_PLAYPAUSE
/// press, sends PlayPause to PLAYER (a unique bus name) on its open session-bus connection: the
/// emulated device and the wake-up of another process, without any of responderd. Says "ready" on
/// stdout once it reads and is connected; runs until killed.
func runRelay(device: String, player: String) -> Never {
  do {
    let loop = try EventLoop()
    let connection = try DBusConnection.session(loop: loop)
    try connection.waitUntilConnected(timeout: 10)
    let fd = try FileDescriptor.openForReading(FilePath(device), options: .nonBlocking)
    // The read libevdev makes (a queue of 256 events): under umockdev the whole buffer crosses
    // the emulator's socket on every read, so a smaller one would make this floor cheaper than
    // the same read(2) in responderd.
    var buffer = [UInt8](repeating: 0, count: 24 * 256)
    try loop.register(fd: fd, events: .readable) { _ in
      while true {
        guard let count = try? buffer.withUnsafeMutableBytes({ try fd.read(into: $0) }), count > 0 else {
          break
        }
        for offset in stride(from: 0, to: count - 23, by: 24) {
          let type = UInt16(buffer[offset + 16]) | UInt16(buffer[offset + 17]) << 8
          let code = UInt16(buffer[offset + 18]) | UInt16(buffer[offset + 19]) << 8
          guard type == 1, code == keyPlayPause, buffer[offset + 20] == 1 else { continue }
          connection.call(
            destination: player, path: "/org/mpris/MediaPlayer2", interface: "org.mpris.MediaPlayer2.Player",
            method: "PlayPause", timeout: 5
          ) { _ in }
        }
        // A short read took everything there was: no read(2) only to hear EAGAIN (responderd
        // does not make one either: libevdev_has_event_pending polls instead).
        if count < buffer.count { break }
      }
    }
    writeText("ready\n", to: .standardOutput)
    loop.run()
    exit(0)
  } catch {
    writeText("relay: \(error)\n", to: .standardError)
    exit(1)
  }
}
