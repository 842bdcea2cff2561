import EventTime
import InputCodes

/// A device the key reader opened, as the layer above sees it to decide what to do with it.
public struct KeyDeviceCandidate: Sendable, Equatable {
  public var identity: InputDeviceIdentity
  /// udev's `ID_USB_INTERFACES` of a USB device's node (":010100:010200:030000:"), nil on other
  /// buses.
  public var usbInterfaces: String?
  /// Whether it has letter keys: a keyboard.
  public var isKeyboard: Bool

  public init(identity: InputDeviceIdentity, usbInterfaces: String? = nil, isKeyboard: Bool = false) {
    self.identity = identity
    self.usbInterfaces = usbInterfaces
    self.isKeyboard = isKeyboard
  }
}

/// What the layer above decided of a candidate: the keys that may be read from it, and whether
/// responderd owns it. The reader decides nothing itself: it opens, filters and grabs as told.
public struct KeyDeviceDecision: Sendable, Equatable {
  /// The mapped key codes: the only keys read from a shared device (the reader keeps the device
  /// open only when it has one of them).
  public var mappedKeys: Set<UInt16>
  /// Whether a rule says to leave the device alone.
  public var isIgnored: Bool
  /// Whether to own (grab) it.
  public var grab: Bool
  /// Why it is owned or shared, in words ("headset class: a key device of a USB audio device").
  public var explanation: String
  /// The same as a stable word ("rule", "headset-class", "keyboard", …).
  public var reasonCode: String

  public init(
    mappedKeys: Set<UInt16>, isIgnored: Bool = false, grab: Bool = false, explanation: String = "",
    reasonCode: String = ""
  ) {
    self.mappedKeys = mappedKeys
    self.isIgnored = isIgnored
    self.grab = grab
    self.explanation = explanation
    self.reasonCode = reasonCode
  }
}

/// The stream of mapped keys, as the reader hands it up: the only key events that leave it (the
/// volume and other keys of owned devices go to their own observers).
public enum MappedKeyEvent: Sendable, Equatable {
  /// A device with mapped keys was opened: its keys carry `source` ("evdev:/dev/input/event7").
  case deviceOpened(source: String, identity: InputDeviceIdentity)
  /// A mapped key event (press, release or auto-repeat), its time on the reader's scheduler.
  case key(RawInputEvent, source: String)
  /// The device was closed at `time` (unplugged, released, stopped): no more keys come from it.
  case deviceClosed(source: String, at: Seconds)
}
