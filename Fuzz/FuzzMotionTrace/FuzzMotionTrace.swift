// libFuzzer target: the motion trace (CSV) reader that `motion analyze` uses, on arbitrary text,
// and the analysis of what it reads (scripts/fuzz motion).
import ResponderTools
import TouchScenes

/// One input: the bytes as a `t,x,y,z` trace.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
  if let samples = try? MotionTrace.parse(text, file: "fuzz.csv") {
    _ = MotionAnalysis(samples: samples)
  }
  return 0
}
