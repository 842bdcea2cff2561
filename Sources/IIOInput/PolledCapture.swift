import Motion
import ResponderCore

/// Reads an accelerometer by polling its `in_accel_*_raw` sysfs attributes on a timer (the event
/// loop's timerfd, through the scheduler), at the configured rate.
final class PolledCapture {
  private let accelerometer: Accelerometer
  private let scheduler: any Scheduler
  private let converter: SampleConverter
  private let period: Seconds
  private let onSample: (MotionSample) -> Void
  private let onFailure: (IIOError) -> Void
  private var timer: ScheduledTimer?
  private var nextDeadline: Seconds = 0
  /// Samples read so far.
  private(set) var sampleCount = 0

  init(
    accelerometer: Accelerometer, scheduler: any Scheduler, rate: Double, converter: SampleConverter,
    onSample: @escaping (MotionSample) -> Void, onFailure: @escaping (IIOError) -> Void
  ) {
    self.accelerometer = accelerometer
    self.scheduler = scheduler
    self.converter = converter
    self.period = 1 / rate
    self.onSample = onSample
    self.onFailure = onFailure
  }

  /// Starts reading: the first sample on the next turn of the loop, then one per period.
  func start() {
    nextDeadline = scheduler.now
    timer = scheduler.schedule(at: nextDeadline) { [weak self] in self?.tick() }
  }

  func stop() {
    timer?.cancel()
    timer = nil
  }

  private func tick() {
    timer = nil
    let now = scheduler.now
    do {
      let raw = Vector3(
        Double(try accelerometer.x.readInteger("raw")), Double(try accelerometer.y.readInteger("raw")),
        Double(try accelerometer.z.readInteger("raw")))
      sampleCount += 1
      onSample(converter.sample(t: now, raw: raw))
    } catch let error as IIOError {
      onFailure(error)
      return
    } catch {
      return
    }
    // Keep to the rate's grid; after a stall, start again from now rather than catch up.
    nextDeadline += period
    if nextDeadline <= scheduler.now { nextDeadline = scheduler.now + period }
    if timer == nil { timer = scheduler.schedule(at: nextDeadline) { [weak self] in self?.tick() } }
  }
}
