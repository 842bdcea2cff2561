import EventTime
import ResponderCore

/// The direction the device moves most along lately: the principal axis of the recent dynamic
/// acceleration, followed by power iteration on its low-passed second moments (a positive
/// semi-definite matrix never turns the axis by more than a right angle, so its sign stays).
struct PrincipalAxis {
  /// A step of the iteration every `step` at most: the axis of a motion of a few hertz moves no
  /// faster, and at high rates most samples skip it.
  static let step: Seconds = 0.02

  /// The recent dynamic acceleration's second moments (a low-pass of d·dᵀ, m²/s⁴).
  private(set) var moments = Moments()
  /// A vector along the axis, of whatever length (kept between 1e-40 and 1e40): the iteration runs
  /// on it unnormalized, so that no square root and division lie on the chain from one sample to
  /// the next; the axis itself is this vector scaled to length 1, when it is asked for.
  private var vector = Vector3(1, 0, 0)
  /// `vector.dot(vector)`, kept beside it (the next step works it out anyway).
  private var vectorSquared = 1.0
  private var axis = Vector3(1, 0, 0)
  private var axisIsStale = false
  private var nextStep: Seconds = -.infinity

  /// Takes the dynamic acceleration `d` of the sample at `t`, with the low-pass filter's weight `k`.
  @inline(__always) mutating func update(_ d: Vector3, weight k: Double, at t: Seconds) {
    let updated = moments.adding(d, weight: k)
    moments = updated
    guard t >= nextStep else { return }
    nextStep = t + PrincipalAxis.step
    let next = updated.times(vector)
    let squared = next.dot(next)
    // (The axis stays where it was when the moments are all but nothing.)
    guard squared > 1e-24 * vectorSquared else { return }
    if squared > 1e40 || squared < 1e-40 {
      vector = next * PlainMath.inverseSquareRoot(squared)
      vectorSquared = vector.dot(vector)
    } else {
      vector = next
      vectorSquared = squared
    }
    axisIsStale = true
  }

  /// The axis (a unit vector), scaled when the vector moved. (Two Newton steps: its length is off
  /// by 5e-6 at most, which moves no decision on any corpus.)
  mutating func current() -> Vector3 {
    if axisIsStale {
      axis = vector * PlainMath.inverseSquareRoot(vectorSquared, steps: 2)
      axisIsStale = false
    }
    return axis
  }
}

/// The second moments of a vector, low-passed (a symmetric 3 × 3 matrix).
struct Moments {
  var xx = 0.0, yy = 0.0, zz = 0.0, xy = 0.0, xz = 0.0, yz = 0.0

  /// These moments moved a share `k` of the way to `d`'s.
  @inline(__always) func adding(_ d: Vector3, weight k: Double) -> Moments {
    Moments(
      xx: xx + (d.x * d.x - xx) * k, yy: yy + (d.y * d.y - yy) * k, zz: zz + (d.z * d.z - zz) * k,
      xy: xy + (d.x * d.y - xy) * k, xz: xz + (d.x * d.z - xz) * k, yz: yz + (d.y * d.z - yz) * k)
  }

  /// vᵀ M v.
  func quadratic(_ v: Vector3) -> Double {
    v.x * v.x * xx + v.y * v.y * yy + v.z * v.z * zz + 2 * (v.x * v.y * xy + v.x * v.z * xz + v.y * v.z * yz)
  }

  func times(_ v: Vector3) -> Vector3 {
    Vector3(xx * v.x + xy * v.y + xz * v.z, xy * v.x + yy * v.y + yz * v.z, xz * v.x + yz * v.y + zz * v.z)
  }
}
