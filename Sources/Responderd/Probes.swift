import EventLoop

#if canImport(Glibc)
  import Glibc
#endif

/// The names in a directory (without "." and ".."), empty when it cannot be read.
public func directoryEntries(_ path: String) -> [String] {
  guard let dir = opendir(path) else { return [] }
  defer { closedir(dir) }
  var names: [String] = []
  while let entry = readdir(dir) {
    let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
      String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
    }
    if name != "." && name != ".." { names.append(name) }
  }
  return names.sorted()
}

/// Says at startup, one line each, which inputs the machine lacks, so that a service started on
/// a machine with no devices and no bus explains itself.
public final class StartupProbe: ServiceComponent {
  public let componentName = "probe"
  public init() {}

  public func start(in service: Service) throws {
    let inputs = directoryEntries("/dev/input").filter { $0.hasPrefix("event") }
    if inputs.isEmpty {
      service.logger.notice("evdev: no input devices found (/dev/input has no event nodes)")
    }
    let iio = directoryEntries("/sys/bus/iio/devices").filter { $0.hasPrefix("iio:device") }
    if iio.isEmpty {
      service.logger.notice("iio: no IIO sensors found (/sys/bus/iio/devices is empty)")
    }
  }

  public func stop() {}
}
