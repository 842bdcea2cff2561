#ifndef BENCH_SHIMS_H
#define BENCH_SHIMS_H

/// Makes this process the reaper of its orphaned descendants (PR_SET_CHILD_SUBREAPER), so that
/// no process a benchmark started (or one of those started) is left to PID 1; 0 on success.
int bench_become_subreaper(void);

/// The key floor: reads DEVICE with libevdev and, on each KEY_PLAYPAUSE press, sends PlayPause to
/// PLAYER (a bus name) on a session-bus connection opened before, without awaiting the reply.
/// Prints "ready" once it reads; returns only when the bus goes away or on an error (then 1).
int bench_key_floor(const char *device, const char *player);

/// The volume floor: reads DEVICE with libevdev and, on each KEY_VOLUMEUP / KEY_VOLUMEDOWN press,
/// sets the default sink's volume 5 % up or down on a libpulse connection opened before (the
/// server from PULSE_SERVER). Prints "ready" once it knows the sink; returns only on an error.
int bench_volume_floor(const char *device);

#endif
