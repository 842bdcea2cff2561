import Motion
import ResponderCore
import Testing

#if canImport(Glibc)
  import Glibc
#endif

struct OrientationEstimatorTests {
  /// Gravity as the sensor reads it, 1 g, tilted `degrees` from upright toward the right edge up.
  func upright(turnedBy degrees: Double) -> Vector3 {
    let angle = degrees * .pi / 180
    return Vector3(sin(angle), cos(angle), 0) * standardGravity
  }

  @Test func eachAxisGivesItsOrientation() {
    let cases: [(Vector3, DeviceOrientation)] = [
      (Vector3(0, 1, 0), .portrait), (Vector3(0, -1, 0), .portraitUpsideDown),
      (Vector3(1, 0, 0), .landscapeLeft), (Vector3(-1, 0, 0), .landscapeRight),
      (Vector3(0, 0, 1), .faceUp), (Vector3(0, 0, -1), .faceDown),
    ]
    for (direction, expected) in cases {
      var estimator = OrientationEstimator()
      #expect(estimator.update(gravity: direction * standardGravity) == expected)
    }
  }

  @Test func turningChangesOnlyPastTheHysteresisBothWays() {
    var estimator = OrientationEstimator()
    var changes: [(Double, DeviceOrientation)] = []
    var current = DeviceOrientation.unknown
    for step in Array(0...90) + Array((0...90).reversed()) {
      let orientation = estimator.update(gravity: upright(turnedBy: Double(step)))
      if orientation != current {
        changes.append((Double(step), orientation))
        current = orientation
      }
    }
    #expect(changes.map(\.1) == [.portrait, .landscapeLeft, .portrait])
    // Past 45° by about 10° each way.
    #expect(changes[1].0 > 50 && changes[1].0 < 60, "\(changes)")
    #expect(changes[2].0 > 30 && changes[2].0 < 40, "\(changes)")
  }

  @Test func wobblingAt45DegreesDoesNotFlicker() {
    var estimator = OrientationEstimator()
    estimator.update(gravity: upright(turnedBy: 0))
    for step in 0..<200 {
      estimator.update(gravity: upright(turnedBy: 45 + 5 * sin(Double(step))))
    }
    #expect(estimator.orientation == .portrait)
  }

  @Test func hardAccelerationKeepsTheOrientation() {
    var estimator = OrientationEstimator()
    estimator.update(gravity: upright(turnedBy: 0))
    #expect(estimator.update(gravity: Vector3(2, 0, 0) * standardGravity) == .portrait)
    #expect(estimator.update(gravity: Vector3(0.1, 0, 0) * standardGravity) == .portrait)
    estimator.reset()
    #expect(estimator.orientation == .unknown)
  }
}
