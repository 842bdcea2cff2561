import InputCodes
import RemoteControl
import ResponderCore
import Testing

@Suite("Which devices responderd owns (grab = auto, always, never)")
struct DeviceOwnershipTests {
  @Test(
    "headset classes: the jack input, a USB audio device's keys, BlueZ's AVRCP device",
    arguments: [
      (InputDeviceIdentity(name: "HDA Intel PCH Headphone Mic", phys: "ALSA"), nil, HeadsetClass.jack),
      (InputDeviceIdentity(name: "sof-hda-dsp Headset Jack", phys: "ALSA"), nil, .jack),
      (InputDeviceIdentity(name: "bytcr-rt5640 Headset Jack", phys: ""), nil, .jack),
      (
        InputDeviceIdentity(name: "Logitech USB Headset H340 Consumer Control", bustype: 3),
        ":010100:010200:030000:", .usbAudio
      ),
      (InputDeviceIdentity(name: "WH-1000XM4 (AVRCP)", bustype: 5), nil, .bluetoothAVRCP),
    ] as [(InputDeviceIdentity, String?, HeadsetClass)])
  func headsetClasses(identity: InputDeviceIdentity, interfaces: String?, expected: HeadsetClass) {
    #expect(HeadsetClass.of(identity, usbInterfaces: interfaces) == expected)
    let intent = KeySettings.standard.ownership(
      of: KeySettings.standard.profile(for: identity), headsetClass: expected, isKeyboard: false)
    #expect(intent.grab && intent.code == "headset-class")
  }

  @Test("not of a headset class: a USB keyboard, a webcam with a button, a USB HID-only remote")
  func notHeadsetClass() {
    let keyboard = InputDeviceIdentity(name: "Microsoft Wired Keyboard 600", bustype: 3)
    #expect(HeadsetClass.of(keyboard, usbInterfaces: ":030101:030000:") == nil)
    // A webcam without a microphone: video interfaces (class 0e) only.
    #expect(HeadsetClass.of(keyboard, usbInterfaces: ":0e0100:0e0200:") == nil)
    #expect(HeadsetClass.of(keyboard, usbInterfaces: "") == nil)
    #expect(HeadsetClass.of(keyboard, usbInterfaces: ":100101:") == nil)  // "10…" is not class 01
    let settings = KeySettings.standard
    let shared = settings.ownership(of: settings.profile(for: keyboard), headsetClass: nil, isKeyboard: false)
    #expect(!shared.grab && shared.explanation == "not a headset-class device")
  }

  @Test("auto never takes a keyboard, even of a headset class; always and never override")
  func rulesAndKeyboards() {
    var settings = KeySettings.standard
    let headset = InputDeviceIdentity(
      name: "USB Headset Keyboard", bustype: 3, vendor: 0x0d8c, product: 0x0014)
    let keyboard = settings.ownership(
      of: settings.profile(for: headset), headsetClass: .usbAudio, isKeyboard: true)
    #expect(!keyboard.grab && keyboard.explanation == "a keyboard (the desktop's)")
    settings.deviceRules.append(DeviceRule(match: DeviceMatch(name: "USB Headset*"), grab: .always))
    let always = settings.ownership(
      of: settings.profile(for: headset), headsetClass: .usbAudio, isKeyboard: true)
    #expect(always.grab && always.explanation == "rule (name \"USB Headset*\"): grab = \"always\"")
    settings.deviceRules.append(DeviceRule(match: DeviceMatch.id("0003:0d8c")!, grab: .never))
    let never = settings.ownership(
      of: settings.profile(for: headset), headsetClass: .usbAudio, isKeyboard: false)
    #expect(!never.grab && never.explanation == "rule (id 0003:0d8c:*): grab = \"never\"")
  }

  @Test("typing keys are never read; media, volume and headset keys are not typing keys")
  func typingKeys() {
    for code: UInt16 in [1, 16, 30, 57, 103, 112, 125, 183, 194] { #expect(InputCode.isTypingKey(code)) }
    for code: UInt16 in [
      InputCode.KEY_MUTE, InputCode.KEY_VOLUMEUP, InputCode.KEY_PLAYPAUSE, InputCode.KEY_MEDIA,
      InputCode.KEY_MICMUTE, InputCode.KEY_VOICECOMMAND, InputCode.KEY_PHONE,
    ] {
      #expect(!InputCode.isTypingKey(code))
    }
  }
}
