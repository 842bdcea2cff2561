// libFuzzer target: a message off the wire (libdbus demarshals and validates it) decoded into
// DBusValue arguments (scripts/fuzz dbus).
import DBus
import Glibc

/// One input: the bytes as one marshalled D-Bus message.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  guard let message = try? DBusMessage.demarshal(Array(UnsafeBufferPointer(start: data, count: size)))
  else { return 0 }
  _ = message.description
  let arguments = message.arguments
  for value in arguments { closeDescriptors(in: value) }
  // What the daemon does next with arguments: compute their signature, validate them, send them on.
  _ = arguments.signature
  if let copy = try? DBusMessage.signal(path: "/fuzz", interface: "org.fuzz", name: "Echo") {
    try? copy.append(arguments)
  }
  return 0
}

/// Closes the descriptors decoding handed over (each unix fd read is a new descriptor).
private func closeDescriptors(in value: DBusValue) {
  switch value {
  case .unixFD(let fd): close(fd)
  case .variant(let inner): closeDescriptors(in: inner)
  case .structure(let values), .array(_, let values): values.forEach(closeDescriptors)
  case .dict(_, _, let entries):
    for entry in entries {
      closeDescriptors(in: entry.key)
      closeDescriptors(in: entry.value)
    }
  default: break
  }
}
