import EventTime
import Motion
import ResponderCore

#if canImport(Glibc)
  import Glibc
#endif

/// A deterministic random source (SplitMix64), so every synthetic trace is reproducible.
struct SeededRandom: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
  /// A normally distributed value (Box–Muller).
  mutating func gaussian(sigma: Double) -> Double {
    let u1 = Double.random(in: Double.ulpOfOne..<1, using: &self)
    let u2 = Double.random(in: 0..<1, using: &self)
    return sigma * (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
  }
}

let g = standardGravity

/// A device motion as a continuous function of time: the acceleration an ideal accelerometer
/// would read (gravity included), in m/s², in screen coordinates.
struct Motion {
  var acceleration: (Double) -> Vector3

  /// A device lying still, face up (or in the orientation given by `gravity`).
  static func still(gravity: Vector3 = Vector3(0, 0, g)) -> Motion { Motion { _ in gravity } }

  /// Adds another motion's dynamic part (its acceleration minus nothing: callers pass pure dynamics).
  static func + (lhs: Motion, rhs: Motion) -> Motion {
    Motion { t in lhs.acceleration(t) + rhs.acceleration(t) }
  }

  /// A back-and-forth shake along `axis`: `amplitude` g peak at `frequency` Hz, from `start` for
  /// `duration` seconds (dynamic part only).
  static func shake(
    frequency: Double, amplitude: Double, start: Double, duration: Double,
    axis: Vector3 = Vector3(1, 0, 0)
  ) -> Motion {
    let unit = axis * (1 / axis.length)
    return Motion { t in
      guard t >= start, t < start + duration else { return .zero }
      return unit * (amplitude * g * sin(2 * .pi * frequency * (t - start)))
    }
  }
}

/// Samples a motion the way an accelerometer does: each sample is the mean acceleration over the
/// sampling period before its timestamp (a sensor's digital low-pass at about half its output
/// rate), plus Gaussian noise; optional timestamp jitter and dropped samples.
struct Sampler {
  var rate: Double
  var noise: Double = 0.02 * g
  /// Timestamp jitter, as a fraction of the period (uniform, ±).
  var jitter: Double = 0
  /// Fraction of samples dropped at random.
  var dropFraction: Double = 0
  var seed: UInt64 = 1

  func samples(of motion: Motion, from start: Double = 0, to end: Double) -> [MotionSample] {
    var random = SeededRandom(seed: seed)
    let period = 1 / rate
    let steps = max(1, Int((period / 0.0005).rounded(.up)))
    var result: [MotionSample] = []
    var index = 1
    while true {
      var t = start + Double(index) * period
      if jitter > 0 { t += Double.random(in: -jitter...jitter, using: &random) * period }
      index += 1
      if t > end { break }
      if dropFraction > 0, Double.random(in: 0..<1, using: &random) < dropFraction { continue }
      var sum = Vector3.zero
      for step in 0..<steps {
        sum = sum + motion.acceleration(t - period * (Double(step) + 0.5) / Double(steps))
      }
      let mean = sum * (1 / Double(steps))
      let noisy = Vector3(
        mean.x + random.gaussian(sigma: noise), mean.y + random.gaussian(sigma: noise),
        mean.z + random.gaussian(sigma: noise))
      result.append(MotionSample(t: t, acceleration: noisy))
    }
    return result
  }
}

/// Runs the detector over samples on virtual time, then lets time run on until every pending
/// decision is made; returns its decisions.
func detect(
  _ samples: [MotionSample], settings: ShakeSettings = ShakeSettings(),
  sensorLostAt lostAt: Double? = nil
) -> [ShakeEvent] {
  let scheduler = VirtualScheduler(now: samples.first?.t ?? 0)
  var events: [ShakeEvent] = []
  let detector = ShakeDetector(settings: settings, scheduler: scheduler) { events.append($0) }
  for sample in samples {
    if let lostAt, sample.t >= lostAt { break }
    scheduler.advance(to: sample.t)
    detector.process(sample)
  }
  if let lostAt {
    scheduler.advance(to: lostAt)
    detector.sensorLost()
  }
  scheduler.runUntilIdle()
  return events
}

/// Rotates `v` by `angle` radians about the unit vector `axis` (Rodrigues' formula).
func rotate(_ v: Vector3, about axis: Vector3, by angle: Double) -> Vector3 {
  let k = axis * (1 / axis.length)
  let cross = Vector3(k.y * v.z - k.z * v.y, k.z * v.x - k.x * v.z, k.x * v.y - k.y * v.x)
  return v * cos(angle) + cross * sin(angle) + k * (k.dot(v) * (1 - cos(angle)))
}

extension Motion {
  /// Gravity as read by a device whose orientation is turned by `angle(t)` about `axis` from
  /// lying face up (the device turns, so gravity turns the other way in its frame).
  static func turning(about axis: Vector3, angle: @escaping (Double) -> Double) -> Motion {
    Motion { t in rotate(Vector3(0, 0, g), about: axis, by: -angle(t)) }
  }

  /// Walking with the device in hand: 2 Hz steps, at most 0.4 g (vertical bounce with a harmonic,
  /// sideways sway at the stride frequency, a little fore-aft).
  static func walking(stepFrequency f: Double = 2, vertical: Vector3 = Vector3(0, 0, 1)) -> Motion {
    Motion { t in
      let bounce = 0.28 * sin(2 * .pi * f * t) + 0.08 * sin(4 * .pi * f * t + 0.6)
      let sway = 0.08 * sin(.pi * f * t)
      let surge = 0.05 * sin(2 * .pi * f * t + 1.2)
      return (vertical * bounce + Vector3(sway, surge, 0)) * g
    }
  }

  /// One bump: a push (half-sine of `peak` g for 0.1 s) then the stop that brings the device to
  /// rest again (opposite half-sine over 0.15 s), along `axis`, at `time`.
  static func bump(at time: Double, peak: Double = 2, axis: Vector3 = Vector3(1, 0, 0)) -> Motion {
    let unit = axis * (1 / axis.length)
    return Motion { t in
      let s = t - time
      if s >= 0 && s < 0.1 { return unit * (peak * g * sin(.pi * s / 0.1)) }
      if s >= 0.1 && s < 0.25 { return unit * (-peak * g * (0.1 / 0.15) * sin(.pi * (s - 0.1) / 0.15)) }
      return .zero
    }
  }

  /// One quick stroke: half-sines of `halfCycle` seconds, alternating in direction along `axis`,
  /// with the given peaks (g): the push, the brake, then the rebounds of a hand stopping it.
  static func stroke(at time: Double, peaks: [Double], halfCycle: Double, axis: Vector3) -> Motion {
    swings(at: time, peaks: peaks, lengths: Array(repeating: halfCycle, count: peaks.count), axis: axis)
  }

  /// Swings back and forth along `axis`: half-sines alternating in direction, the first forward,
  /// with the given peaks (g) and lengths (s), repeated every `period` seconds when one is given.
  static func swings(
    at time: Double, peaks: [Double], lengths: [Double], axis: Vector3, period: Double? = nil
  ) -> Motion {
    let unit = axis * (1 / axis.length)
    let total = lengths.reduce(0, +)
    return Motion { t in
      var s = t - time
      guard s >= 0 else { return .zero }
      if let period { s = s.truncatingRemainder(dividingBy: period) }
      guard s < total else { return .zero }
      var index = 0
      while s >= lengths[index] {
        s -= lengths[index]
        index += 1
      }
      let sign = index % 2 == 0 ? 1.0 : -1.0
      return unit * (sign * peaks[index] * g * sin(.pi * s / lengths[index]))
    }
  }

  /// Taps on the table the device lies on: each a damped ring (40 Hz, `peak` g, 15 ms decay) along
  /// z, `rate` taps per second from `start` for `duration` seconds.
  static func tableTaps(start: Double, duration: Double, rate: Double = 3, peak: Double = 2.5) -> Motion {
    Motion { t in
      guard t >= start, t < start + duration + 0.2 else { return .zero }
      let sinceStart = t - start
      let tapIndex = min((sinceStart * rate).rounded(.down), (duration * rate).rounded(.down) - 1)
      let s = sinceStart - tapIndex / rate
      guard s >= 0 else { return .zero }
      return Vector3(0, 0, peak * g * exp(-s / 0.015) * sin(2 * .pi * 40 * s + .pi / 2))
    }
  }
}
