// libFuzzer target: the touch scene reader (JSON, then the scene) on arbitrary text
// (scripts/fuzz scene).
import ResponderTools
import TouchScenes

/// One input: the bytes as a scene file.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
  _ = try? TouchScene.parse(text, file: "fuzz.json")
  return 0
}
