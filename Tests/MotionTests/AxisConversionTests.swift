import Motion
import Testing

@Suite("Mount matrix and screen rotation")
struct AxisConversionTests {
  @Test func parsesMountMatrix() throws {
    let matrix = try #require(Matrix3.parseMountMatrix("0, 1, 0; -1, 0, 0; 0, 0, 1"))
    #expect(matrix.row0 == Vector3(0, 1, 0))
    #expect(matrix.row1 == Vector3(-1, 0, 0))
    #expect(matrix.row2 == Vector3(0, 0, 1))
    #expect(Matrix3.parseMountMatrix("1,0,0;0,1,0;0,0,1\n") == .identity)
    #expect(Matrix3.parseMountMatrix("0.7071, -0.7071, 0; 0.7071, 0.7071, 0; 0, 0, 1")?.row0.x == 0.7071)
  }

  @Test func rejectsMalformedMountMatrix() {
    for text in [
      "", "1, 0, 0; 0, 1, 0", "1, 0; 0, 1, 0; 0, 0, 1", "a, 0, 0; 0, 1, 0; 0, 0, 1",
      "1, 0, 0; 0, 1, 0; 0, 0, 1; 0",
    ] {
      #expect(Matrix3.parseMountMatrix(text) == nil, "\(text)")
    }
  }

  @Test("Raw readings to m/s²: (raw + offset) × scale, then the mount matrix")
  func converter() throws {
    let mount = try #require(Matrix3.parseMountMatrix("0, 1, 0; -1, 0, 0; 0, 0, 1"))
    let converter = SampleConverter(
      scale: Vector3(0.009582, 0.009582, 0.009582), offset: Vector3(0, 0, 2), mountMatrix: mount)
    let sample = converter.sample(t: 1.5, raw: Vector3(12, -987, 51))
    #expect(sample.t == 1.5)
    #expect(abs(sample.x - (-987 * 0.009582)) < 1e-9)
    #expect(abs(sample.y - (-12 * 0.009582)) < 1e-9)
    #expect(abs(sample.z - (53 * 0.009582)) < 1e-9)
  }

  @Test("Screen rotation: a device held upright in portrait")
  func rotations() {
    // Upright in portrait, the device's top edge is up: the accelerometer reads +g along y.
    let upright = Vector3(0, 9.81, 0)
    func screen(_ rotation: ScreenRotation) -> Vector3 {
      SampleConverter(rotation: rotation).sample(t: 0, raw: upright).acceleration
    }
    #expect(screen(.normal) == Vector3(0, 9.81, 0))
    // Picture turned left: its right edge is the device's top, so "up" is the picture's +x.
    #expect(screen(.left) == Vector3(9.81, 0, 0))
    #expect(screen(.right) == Vector3(-9.81, 0, 0))
    #expect(screen(.inverted) == Vector3(0, -9.81, 0))
    #expect(ScreenRotation(name: "left") == .left)
    #expect(ScreenRotation(name: "270") == .right)
    #expect(ScreenRotation(name: "sideways") == nil)
  }
}
