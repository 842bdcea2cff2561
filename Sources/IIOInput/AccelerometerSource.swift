import EventTime
import Motion

/// Where the motion component's samples come from: an accelerometer opened while wanted, its
/// samples, and what happens to it (opened, reconfigured, gone). `IIOInput` is the real one
/// (libiio, udev); the test kit's `FakeAccelerometer` is an in-process double with a sensor that
/// is plugged in, shaken, held still or unplugged, so that what the daemon does around the
/// accelerometer is tested without one.
public protocol AccelerometerSource: AnyObject {
  /// Sampling is wanted now (`setWanted(true)`).
  var isWanted: Bool { get }
  /// The sensor being sampled, also while it is kept open after the last want.
  var sensor: IIOInput.Sensor? { get }
  /// The sensor is open only because it is kept for a moment after the last want.
  var isKeptOpen: Bool { get }
  /// How late a sample may be delivered after its timestamp.
  var latency: Seconds { get }
  /// Called when what `probe()` answers may have changed (a sensor came, went, opened, closed).
  var onAvailabilityChange: (() -> Void)? { get set }
  /// Calls `observer` with each sample delivered while wanted.
  func addSampleObserver(_ observer: @escaping (MotionSample) -> Void)
  /// Calls `observer` when a sensor is opened, reconfigured or stops delivering.
  func addSensorObserver(_ observer: @escaping (IIOInput.SensorChange) -> Void)
  /// Calls `observer` with each sensor device added or removed ("remove", "iio:device1") while
  /// the source watches for them.
  func addDeviceObserver(_ observer: @escaping (_ action: String, _ id: String) -> Void)
  /// Opens the sensor when `wanted`, closes it when not.
  func setWanted(_ wanted: Bool)
  /// Asks for `rate` Hz in blocks of about `blockDuration` (0: each sample as it comes).
  func setSampling(rate: Double, blockDuration: Seconds)
  /// Not wanted any more, but kept open for `seconds` on `scheduler`.
  func release(keepingOpenFor seconds: Seconds, on scheduler: any Scheduler)
  /// The accelerometer that would be opened, with its rates, without opening it; nil: none.
  func probe() -> (id: String, name: String, availableRates: [Double])?
}

extension IIOInput: AccelerometerSource {}
