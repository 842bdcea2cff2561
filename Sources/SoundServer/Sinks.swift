import InputCodes

/// A sink of the sound server, as the server describes it.
public struct Sink: Sendable, Equatable {
  /// The server's index of the sink.
  public var index: UInt32
  /// Its name (`alsa_output.usb-…`, `speakers`).
  public var name: String
  /// Its human-readable description.
  public var description: String
  /// Its properties (`alsa.card`, `sysfs.path`, `device.bus_path`, `device.vendor.id`, …).
  public var properties: [String: String]
  /// The volume of each channel, in the server's units (`normVolume` is 100 %).
  public var channelVolumes: [UInt32]
  public var isMuted: Bool

  public init(
    index: UInt32, name: String, description: String = "", properties: [String: String] = [:],
    channelVolumes: [UInt32] = [], isMuted: Bool = false
  ) {
    self.index = index
    self.name = name
    self.description = description
    self.properties = properties
    self.channelVolumes = channelVolumes
    self.isMuted = isMuted
  }

  /// The server's 100 % (`PA_VOLUME_NORM`).
  public static let normVolume: UInt32 = 0x10000

  /// The loudest channel's volume in percent of 100 %, rounded.
  public var volumePercent: Int {
    Int((Double(channelVolumes.max() ?? 0) * 100 / Double(Self.normVolume)).rounded())
  }
}

extension InputDeviceLocation {
  /// Why `sink` is this device's sink, or nil when nothing ties them: the sink's `sysfs.path` lies
  /// under the USB device, its ALSA card is one of the device's cards, or its USB vendor and
  /// product ids are the device's.
  public func reason(toMatch sink: Sink) -> String? {
    let properties = sink.properties
    if let usbDevicePath, let sysfsPath = properties["sysfs.path"],
      sysfsPath == usbDevicePath || sysfsPath.hasPrefix(usbDevicePath + "/")
    {
      return "sysfs.path \(sysfsPath)"
    }
    // PulseAudio's ALSA sinks carry `alsa.card`; PipeWire's (through pipewire-pulse) carry it too,
    // with `api.alsa.pcm.card`, and its devices `api.alsa.card`.
    for key in ["alsa.card", "api.alsa.pcm.card", "api.alsa.card"] {
      if let card = properties[key].flatMap({ Int($0) }), cardNumbers.contains(card) {
        return "\(key) \(card)"
      }
    }
    // PulseAudio writes USB ids as "046d", PipeWire as "0x046d".
    if let usbVendor, let usbProduct, properties["device.bus"] == "usb",
      properties["device.vendor.id"].flatMap(Self.usbID) == usbVendor,
      properties["device.product.id"].flatMap(Self.usbID) == usbProduct
    {
      return "usb id \(Self.hex(usbVendor)):\(Self.hex(usbProduct))"
    }
    return nil
  }

  /// A USB id written in hex, with or without "0x".
  private static func usbID(_ text: String) -> UInt16? {
    let digits = text.lowercased().hasPrefix("0x") ? String(text.dropFirst(2)) : text
    return UInt16(digits, radix: 16)
  }
}

/// A volume key.
public enum VolumeKey: String, Sendable, CaseIterable {
  case up, down, mute
}

/// What a volume key did.
public enum VolumeOutcome: Sendable, Equatable, CustomStringConvertible {
  /// The sink's volume or mute changed (or was already at its limit: `before == after`).
  case changed(sink: String, matchedBy: String?, before: Level, after: Level)
  /// No sound server to talk to.
  case noServer
  /// The server has no sink.
  case noSink
  /// The server refused the change.
  case failed(sink: String, reason: String)
  /// Not applied: the server has not answered the previous changes (stopped, frozen).
  case dropped(reason: String)
  /// Not answered yet by a server that has stopped answering: applied if it answers again. What
  /// `responderctl monitor` shows of such a press while the presses after it are dropped.
  case unanswered(reason: String)

  /// A sink's volume and mute state.
  public struct Level: Sendable, Equatable, CustomStringConvertible {
    public var percent: Int
    public var isMuted: Bool
    public init(percent: Int, isMuted: Bool) {
      self.percent = percent
      self.isMuted = isMuted
    }
    public var description: String { "\(percent)%\(isMuted ? " muted" : "")" }
  }

  public var description: String {
    switch self {
    case .changed(let sink, let matchedBy, let before, let after):
      let which = matchedBy.map { "headset sink '\(sink)' (\($0))" } ?? "default sink '\(sink)'"
      return "\(which) \(before) → \(after)"
    case .noServer: return "no sound server"
    case .noSink: return "the sound server has no sink"
    case .failed(let sink, let reason): return "sink '\(sink)': \(reason)"
    case .dropped(let reason): return "dropped: \(reason)"
    case .unanswered(let reason): return "not answered yet: \(reason)"
    }
  }
}
