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

/// The signal floor: a session-bus connection that follows the owners of NAMES (COUNT of them) with
/// the match rules responderd's player tracker adds (each player's PropertiesChanged of the MPRIS
/// interfaces and its Seeked, the MPRIS names' NameOwnerChanged), reads its socket in batches
/// (blocks until readable, reads and dispatches until the socket is empty, then sleeps PAUSE_MS)
/// and drops every message in its filter. Prints "ready" once its rules are in, and "dropped N" (the
/// messages dropped so far) on each SIGUSR1; returns only when the bus goes away or on an error.
int bench_signal_floor(int pause_ms, int count, char *const *names);

#endif
