/// The components a standard responderd runs, in start order. Each input adapter and the bus add
/// themselves here.
public enum Components {
  /// Adds the standard components to a service.
  public static func addStandard(to service: Service) {
    let bus = BusComponent()
    service.bus = bus
    service.add(bus)
    service.add(SessionComponent())
    service.add(ResponderAPI())
    service.add(MPRISComponent(service: service))
    let keys = KeysComponent()
    service.add(keys)
    service.add(VolumeComponent(keys: keys))
    service.add(DesktopComponent(keys: keys))
    service.add(MotionComponent())
    service.add(MotionAPI())
    service.add(TouchGesturesComponent())
  }
}
