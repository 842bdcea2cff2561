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

/// `EndToEnd --signal-floor PAUSE_MS NAME…`: the floor of the load part. A process of its own
/// follows the owners of the NAMEs with the match rules responderd adds for a player, reads its
/// libdbus connection in batches with responderd's pause between them, and drops every message in
/// its filter (C, in CBenchmarkShims): what reading the signals costs libdbus alone. Says "ready"
/// once its rules are in, and "dropped N" on each SIGUSR1; runs until killed.
func runSignalFloor(pauseMilliseconds: Int32) -> Never {
  let names = CommandLine.unsafeArgv + 3
  exit(bench_signal_floor(pauseMilliseconds, CommandLine.argc - 3, names))
}
