import CIIO
import SystemCalls
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// A libiio local context: a snapshot of the IIO devices under /sys/bus/iio/devices.
final class IIOContext {
  let pointer: OpaquePointer

  init() throws {
    guard rsp_iio_load() != 0 else {
      let reason = rsp_iio_load_error().map { String(cString: $0) } ?? "libiio.so.0 not found"
      throw SystemError("loading libiio (\(reason))", errno: .noSuchFileOrDirectory)
    }
    errno = 0
    guard let context = rsp_iio_create_local_context() else {
      let error = Errno.last
      throw SystemError(
        "iio_create_local_context", errno: error.rawValue == 0 ? .operationNotSupportedByDevice : error)
    }
    pointer = context
  }

  deinit { rsp_iio_context_destroy(pointer) }

  var devices: [IIODevice] {
    (0..<rsp_iio_context_get_devices_count(pointer)).compactMap { index in
      rsp_iio_context_get_device(pointer, index).map { IIODevice(pointer: $0, context: self) }
    }
  }
}

/// A device of a context (the context is kept alive while the device is).
struct IIODevice {
  let pointer: OpaquePointer
  let context: IIOContext

  /// "iio:device0", "trigger0".
  var id: String { String(cString: rsp_iio_device_get_id(pointer)) }
  /// The driver's name ("bmc150_accel"), or "" when it has none.
  var name: String { rsp_iio_device_get_name(pointer).map { String(cString: $0) } ?? "" }
  var isTrigger: Bool { rsp_iio_device_is_trigger(pointer) }

  var channels: [IIOChannel] {
    (0..<rsp_iio_device_get_channels_count(pointer)).compactMap { index in
      rsp_iio_device_get_channel(pointer, index).map { IIOChannel(pointer: $0) }
    }
  }

  func channel(_ id: String, output: Bool = false) -> IIOChannel? {
    rsp_iio_device_find_channel(pointer, id, output).map { IIOChannel(pointer: $0) }
  }

  /// A device attribute as text (trailing newline removed); nil when it cannot be read.
  func attribute(_ name: String) -> String? {
    readText { rsp_iio_device_attr_read(pointer, name, $0, $1) }
  }

  func writeAttribute(_ name: String, _ value: String) throws {
    let result = rsp_iio_device_attr_write(pointer, name, value)
    if result < 0 { throw SystemError("write \(id)/\(name)", errno: Errno(rawValue: Int32(-result))) }
  }
}

/// A channel of a device.
struct IIOChannel {
  let pointer: OpaquePointer

  /// "accel_x", "timestamp".
  var id: String { String(cString: rsp_iio_channel_get_id(pointer)) }
  var isScanElement: Bool { rsp_iio_channel_is_scan_element(pointer) }

  /// A channel attribute as text ("scale" for in_accel_scale or in_accel_x_scale).
  func attribute(_ name: String) -> String? {
    readText { rsp_iio_channel_attr_read(pointer, name, $0, $1) }
  }

  /// The sysfs file name of a channel attribute ("in_accel_x_raw" for "raw"), when it has one.
  func attributeFileName(_ name: String) -> String? {
    rsp_iio_channel_attr_get_filename(pointer, name).map { String(cString: $0) }
  }

  /// Reads an integer attribute ("raw").
  func readInteger(_ name: String) throws -> Int64 {
    var value: Int64 = 0
    let result = rsp_iio_channel_attr_read_longlong(pointer, name, &value)
    if result < 0 { throw SystemError("read \(id) \(name)", errno: Errno(rawValue: -result)) }
    return Int64(value)
  }

  /// How the channel is stored in a buffered scan.
  var format: ScanElementFormat? {
    guard let raw = rsp_iio_channel_get_data_format(pointer)?.pointee else { return nil }
    let format = ScanElementFormat(
      isBigEndian: raw.is_be, isSigned: raw.is_signed, bits: Int(raw.bits), storageBits: Int(raw.length),
      repeatCount: Int(max(1, raw.repeat)), shift: Int(raw.shift))
    return format.isDecodable ? format : nil
  }
}

private func readText(_ read: (UnsafeMutablePointer<CChar>, Int) -> Int) -> String? {
  var buffer = [CChar](repeating: 0, count: 1024)
  let count = buffer.withUnsafeMutableBufferPointer { read($0.baseAddress!, $0.count) }
  guard count > 0 else { return nil }
  let text = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
  var trimmed = Substring(text)
  while let last = trimmed.last, last == "\n" || last == " " { trimmed.removeLast() }
  return String(trimmed)
}
