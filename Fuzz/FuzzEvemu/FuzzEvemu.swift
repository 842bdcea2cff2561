// libFuzzer target: the evemu recording reader on arbitrary text (scripts/fuzz evemu).
import InputCodes

/// One input: the bytes as an evemu recording.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
  if let recording = try? EvemuRecording(text: text) {
    // What the replay tools read next: the events' names.
    for event in recording.events.prefix(64) where event.type == 1 {
      _ = InputCode.keyName(event.code)
    }
  }
  return 0
}
