import EvdevInput
import Logging
import RemoteControl
import ResponderCore

/// Headset and media keys from evdev (`[keys]`): the devices with mapped keys are read on the
/// service's loop, and every emitted event is posted to the application as a remote-control event
/// (its first responder, then the chain of handlers).
public final class KeysComponent: ServiceComponent {
  public let componentName = "evdev"
  /// The evdev reader, while started.
  public private(set) var input: MediaKeyInput?

  public init() {}

  public func start(in service: Service) throws {
    let config = service.config.keys
    guard config.enabled else {
      service.logger.info("evdev: media and headset keys are off ([keys] enabled = false)")
      return
    }
    let input = MediaKeyInput(loop: service.loop, settings: config.settings, logger: service.logger) {
      [weak service] emission in
      service?.postDeviceEvent(
        .remoteControl(emission.subtype, timestamp: emission.timestamp, source: emission.source))
    }
    self.input = input
    try input.start()
  }

  public func stop() {
    input?.stop()
    input = nil
  }
}
