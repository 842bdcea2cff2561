#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The few C-library maths functions the recognizers need.
enum Trig {
  static func sine(_ x: Double) -> Double { sin(x) }
  static func cosine(_ x: Double) -> Double { cos(x) }
  static func arcTangent(_ y: Double, _ x: Double) -> Double { atan2(y, x) }
}
