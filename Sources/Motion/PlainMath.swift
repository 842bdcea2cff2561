/// Square roots and exponentials in plain arithmetic, for the shake detector's per-sample work.
///
/// `squareRoot()` and `exp` are calls into C that the optimizer cannot see through. With one on a
/// sample's path, the detector's state keeps a run-time exclusivity check for every sample (a third
/// of its cost over the corpora, `Benchmarks/ShakeAccuracy`). With none, the compiler proves that
/// no access to the state overlaps another and checks that at compile time instead; exclusivity
/// enforcement itself stays on. (Comparing `ShakeRejection` values with `==` does the same harm:
/// its raw values make that a generic comparison; the detector matches the case instead.)
/// `packaging/test-package` checks the shipped build for the run-time check.
enum PlainMath {
  /// 1 / √x for a positive, finite, normal x: a first guess from the bits of x, then Newton
  /// steps, each squaring the error (3.5e-2 at first, then 2e-3, 5e-6, 4e-11, and within 4 ulps
  /// after the fourth). Two are enough to scale a direction (a length off by 5e-6 at most).
  static func inverseSquareRoot(_ x: Double, steps: Int = 4) -> Double {
    var y = Double(bitPattern: 0x5FE6_EB50_C7B5_37A9 &- (x.bitPattern >> 1))
    let half = 0.5 * x
    y *= 1.5 - half * y * y
    y *= 1.5 - half * y * y
    if steps > 2 { y *= 1.5 - half * y * y }
    if steps > 3 { y *= 1.5 - half * y * y }
    return y
  }

  /// 1 − e^(−x) for x ≥ 0: the share of the way a low-pass filter moves in an interval `x` time
  /// constants long. A polynomial for the intervals of sampling (within 1e-9 of it, relatively,
  /// below 0.1, and 4e-6 below 0.5); a longer interval is halved n times below 1/16 and
  /// e^(−x) = (e^(−x/2ⁿ))^(2ⁿ) (within 1e-9).
  static func lowPassWeight(_ x: Double) -> Double {
    if x < 0.5 { return polynomialWeight(x) }
    // (e^(−40) is under half an ulp of 1.)
    if !(x < 40) { return 1 }
    var part = x
    var squarings = 0
    while part >= 0.0625 {
      part *= 0.5
      squarings += 1
    }
    var remaining = 1 - polynomialWeight(part)
    for _ in 0..<squarings { remaining *= remaining }
    return 1 - remaining
  }

  /// The Taylor polynomial of 1 − e^(−x) to the sixth power.
  private static func polynomialWeight(_ x: Double) -> Double {
    x * (1 - x * 0.5 * (1 - x * (1 / 3.0) * (1 - x * 0.25 * (1 - x * 0.2 * (1 - x * (1 / 6.0))))))
  }
}
