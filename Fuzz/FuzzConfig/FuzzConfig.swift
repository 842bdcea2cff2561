// libFuzzer target: the config reader on arbitrary text (scripts/fuzz config).
import ResponderConfig

/// One input: the bytes as a config file (invalid UTF-8 repaired, as a file read would).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
  _ = try? ResponderdConfig.parse(text, file: "fuzz.toml")
  return 0
}
