import CBenchmarkShims

#if canImport(Glibc)
  import Glibc
#endif

/// `EndToEnd --relay DEVICE PLAYER`: the key floor that reads the same device as responderd. A
/// process of its own reads DEVICE with libevdev and, on a KEY_PLAYPAUSE press, sends PlayPause to
/// PLAYER (a unique bus name) on its open libdbus connection without awaiting the reply (C, in
/// CBenchmarkShims): the emulated device and the wake-up of a process, without any of responderd.
/// Says "ready" on stdout once it reads; runs until killed.
func runRelay(device: String, player: String) -> Never {
  exit(bench_key_floor(device, player))
}

/// `EndToEnd --volume-relay DEVICE`: the volume floor that reads the same device: libevdev, and on
/// KEY_VOLUMEUP / KEY_VOLUMEDOWN the default sink 5 % up or down on its open libpulse connection
/// (the server from PULSE_SERVER). Says "ready" once it knows the sink; runs until killed.
func runVolumeRelay(device: String) -> Never {
  exit(bench_volume_floor(device))
}
