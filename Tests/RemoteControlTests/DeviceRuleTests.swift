import InputCodes
import RemoteControl
import ResponderCore
import Testing

@Suite("Device rules")
struct DeviceRuleTests {
  static let jackNames = [
    InputDeviceIdentity(name: "HDA Intel PCH Headphone Mic", phys: "ALSA"),
    InputDeviceIdentity(name: "sof-hda-dsp Headset Jack", phys: ""),
    InputDeviceIdentity(name: "HDA Intel PCH Headphone Mic", phys: ""),
    InputDeviceIdentity(name: "HDA Intel Front Headphone", phys: ""),
    InputDeviceIdentity(name: "Some Jack", phys: "ALSA"),
  ]

  @Test("jack devices: KEY_PLAYPAUSE gets the click grammar", arguments: jackNames)
  func jackPlayPause(identity: InputDeviceIdentity) {
    let h = Harness(devices: ["jack": identity])
    h.click(PLAYPAUSE, at: 1.0, device: "jack")
    h.advance(to: 1.45)
    #expect(h.log == [])
    h.click(PLAYPAUSE, at: 2.0, device: "jack")
    h.click(PLAYPAUSE, at: 2.2, device: "jack")
    h.finish()
    #expect(h.log == ["togglePlayPause@1.5", "nextTrack@2.7"])
  }

  @Test(
    "not jacks: a USB headset's or a keyboard's KEY_PLAYPAUSE acts at once",
    arguments: [
      Harness.headset, Harness.keyboard,
      InputDeviceIdentity(name: "Headphone Amp Remote", phys: "usb-1/input0"),
      InputDeviceIdentity(name: "Jabra Headset Jack Adapter", phys: "usb-3"),
    ])
  func notJack(identity: InputDeviceIdentity) {
    let h = Harness(devices: ["dev": identity])
    h.press(PLAYPAUSE, at: 1.0, device: "dev")
    #expect(h.log == ["togglePlayPause@1.0"])
  }

  @Test("KEY_MEDIA is a headset key on every device")
  func mediaEverywhere() {
    for identity in [Harness.headset, Harness.keyboard, Harness.jack, InputDeviceIdentity()] {
      #expect(KeySettings.standard.profile(for: identity).role(of: MEDIA) == .headsetButton)
    }
  }

  @Test("a rule by bus:vendor:product names more headset keys")
  func ruleByID() throws {
    var settings = KeySettings.standard
    let match = try #require(DeviceMatch.id("0003:046d:0a38"))
    settings.deviceRules.append(DeviceRule(match: match, headsetKeys: [0x100]))
    let h = Harness(settings: settings, devices: ["usb": Harness.headset, "kbd": Harness.keyboard])
    h.click(0x100, at: 1.0)
    h.click(0x100, at: 1.2)
    h.click(0x100, at: 3.0, device: "kbd")
    h.finish()
    #expect(h.log == ["nextTrack@1.7"])
    #expect(settings.profile(for: Harness.headset).mappedKeys.contains(0x100))
    #expect(!settings.profile(for: Harness.keyboard).mappedKeys.contains(0x100))
  }

  @Test("global headset keys apply to every device")
  func globalHeadsetKeys() {
    let settings = KeySettings(headsetKeys: [MEDIA, PLAYPAUSE])
    let h = Harness(settings: settings, devices: ["kbd": Harness.keyboard])
    h.click(PLAYPAUSE, at: 1.0, device: "kbd")
    h.finish()
    #expect(h.log == ["togglePlayPause@1.5"])
  }

  @Test("a rule by phys ignores a device")
  func ignoreByPhys() {
    var settings = KeySettings.standard
    settings.deviceRules.append(DeviceRule(match: DeviceMatch(phys: "usb-0000:00:14.0-1/*"), ignore: true))
    #expect(settings.profile(for: Harness.keyboard).isIgnored)
    #expect(settings.profile(for: Harness.keyboard).mappedKeys.isEmpty)
    #expect(!settings.profile(for: Harness.headset).isIgnored)
  }

  @Test("a later rule's ignore = false wins over an earlier ignore")
  func ruleOrder() {
    var settings = KeySettings.standard
    settings.deviceRules.append(DeviceRule(match: DeviceMatch(vendor: 0x046d), ignore: true))
    settings.deviceRules.append(DeviceRule(match: DeviceMatch(name: "Logitech USB Headset*"), ignore: false))
    #expect(settings.profile(for: Harness.keyboard).isIgnored)
    #expect(!settings.profile(for: Harness.headset).isIgnored)
  }

  @Test("a rule's keys override the jack default and map more keys")
  func ruleKeys() {
    var settings = KeySettings.standard
    settings.deviceRules.append(
      DeviceRule(
        match: DeviceMatch(phys: "ALSA"),
        keys: [PLAYPAUSE: .onPress(.remoteControlTogglePlayPause), 207: .onPress(.remoteControlPlay)]))
    let h = Harness(settings: settings, devices: ["jack": Harness.jack])
    h.press(PLAYPAUSE, at: 1.0, device: "jack")
    h.press(207, at: 2.0, device: "jack")
    #expect(h.log == ["togglePlayPause@1.0", "play@2.0"])
  }

  @Test("standard mapped keys")
  func mappedKeys() {
    #expect(
      KeySettings.standard.profile(for: Harness.keyboard).mappedKeys
        == [PLAYPAUSE, PLAYCD, PAUSECD, STOPCD, NEXT, PREVIOUS, FASTFORWARD, REWIND, MEDIA])
  }

  @Test("id patterns")
  func idPatterns() {
    #expect(DeviceMatch.id("0003:046d:0a38") == DeviceMatch(bustype: 3, vendor: 0x46d, product: 0xa38))
    #expect(DeviceMatch.id("*:0x046d") == DeviceMatch(vendor: 0x46d))
    #expect(DeviceMatch.id("3") == DeviceMatch(bustype: 3))
    #expect(DeviceMatch.id("0003:zz") == nil)
    #expect(DeviceMatch.id("1:2:3:4") == nil)
    #expect(DeviceMatch.id("0003:046d:*")?.matches(Harness.keyboard) == true)
    #expect(DeviceMatch.id("0005:046d:*")?.matches(Harness.keyboard) == false)
    #expect(DeviceMatch().matches(Harness.keyboard))
  }

  @Test("name and phys criteria are globs")
  func nameAndPhysGlobs() {
    #expect(DeviceMatch(name: "Logi?ech*").matches(Harness.keyboard))
    #expect(!DeviceMatch(name: "Logitech").matches(Harness.keyboard))
    #expect(DeviceMatch(phys: "usb-*/input3").matches(Harness.headset))
    #expect(!DeviceMatch(phys: "usb-*/input3").matches(Harness.keyboard))
    #expect(DeviceMatch(name: "*Keyboard", phys: "usb-*").matches(Harness.keyboard))
    #expect(!DeviceMatch(name: "*Keyboard", phys: "ALSA").matches(Harness.keyboard))
  }
}
