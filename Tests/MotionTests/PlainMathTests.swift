import Testing

@testable import Motion

#if canImport(Glibc)
  import Glibc
#endif

/// The detector's square roots and exponentials in plain arithmetic agree with the C library's.
struct PlainMathTests {
  @Test func inverseSquareRootIsWithinAFewUlps() {
    var generator = SystemRandomNumberGenerator()
    var values: [Double] = [1e-300, 1e-40, 1e-24, 0.25, 1, 2, 3, 96.17, 1e24, 1e40, 1e300]
    for _ in 0..<10_000 { values.append(exp(Double.random(in: -600...600, using: &generator))) }
    for x in values {
      let expected = 1 / x.squareRoot()
      let error = abs(PlainMath.inverseSquareRoot(x) - expected) / expected
      #expect(error < 4 * Double.ulpOfOne, "1/√\(x): off by \(error)")
      let rough = abs(PlainMath.inverseSquareRoot(x, steps: 3) - expected) / expected
      #expect(rough < 1e-10, "1/√\(x) in three steps: off by \(rough)")
      let direction = abs(PlainMath.inverseSquareRoot(x, steps: 2) - expected) / expected
      #expect(direction < 5e-6, "1/√\(x) in two steps (the principal axis's): off by \(direction)")
    }
  }

  @Test func lowPassWeightMatchesExp() {
    var x = 0.0
    while x < 60 {
      let expected = 1 - exp(-x)
      let got = PlainMath.lowPassWeight(x)
      // Below 0.5: the sampling intervals' polynomial (4e-6 relative at most, 1e-9 below 0.1).
      let bound = x < 0.1 ? 1e-9 * expected : x < 0.5 ? 4e-6 * expected : 1e-9
      #expect(abs(got - expected) <= bound, "1 − e^(−\(x)): \(got), not \(expected)")
      x += x < 1 ? 0.001 : 0.0137
    }
    #expect(PlainMath.lowPassWeight(0) == 0)
    #expect(PlainMath.lowPassWeight(.infinity) == 1)
  }
}
