#!/usr/bin/python3
"""phoc 0.24 + phosh 0.24 headless, touches from an emulated multitouch touchscreen.

usage: phosh-session.py DIR FIFO --size WxH --scale S [--no-phosh]

For ShellTestSupport's HeadlessDesktop.phosh (Debian's /usr/bin/python3: gi + UMockdev). It
re-executes itself under umockdev-wrapper and, with the environment it was given (a private
XDG_RUNTIME_DIR, HOME and session bus):

 1. builds a UMockdev testbed with one touchscreen (INPUT_PROP_DIRECT, 10 MT slots, axes of
    the output's physical pixels times SUBPIXEL), answered by a dynamic ioctl handler;
 2. starts phoc with WLR_BACKENDS=headless,libinput, WLR_RENDERER=pixman and
    LD_PRELOAD="DIR/phoc_shim.so libumockdev-preload.so.0" (log: DIR/wm.log);
 3. once phoc's output is up, hot-plugs the touchscreen (umockdev fakes no udev database, so
    libinput's start-up enumeration skips it; the "add" uevent works) and waits until phoc
    has it (phosh needs an input device: phoc makes its wl_seat at the first one);
 4. starts phosh (-U, unlocked) without umockdev's preload, its GSettings from the keyfile of
    XDG_CONFIG_HOME (where HeadlessDesktop turns its animations off), and waits for "shell up"
    (log: DIR/phosh.log);
 5. prints "ready" and reads commands from FIFO, one a line, answering each on stdout with
    "ok" (or "err ...") once written to the touchscreen:
      down SLOT X Y | motion SLOT X Y | up SLOT   queued (X, Y: the output's physical pixels)
      frame                                      the queued events as one evdev frame
      warmup | sync                              nothing (the touchscreen is there already)
      restart-phosh                              phosh killed (SIGKILL) and started again; "ok"
                                                 once the new one is up

It ends when phoc or phosh ends, or at SIGTERM (stopping both).
"""
import os, signal, struct, subprocess, sys, time

if 'umockdev' not in os.environ.get('LD_PRELOAD', ''):
    os.execvp('umockdev-wrapper', ['umockdev-wrapper', sys.executable] + sys.argv)

import gi
gi.require_version('UMockdev', '1.0')
from gi.repository import UMockdev

# Device units per physical pixel: a touch lands on quarter pixels.
SUBPIXEL = 4

EV_SYN, EV_KEY, EV_ABS = 0, 1, 3
BTN_TOUCH = 0x14a
ABS_X, ABS_Y, ABS_MT_SLOT = 0x00, 0x01, 0x2f
ABS_MT_POSITION_X, ABS_MT_POSITION_Y, ABS_MT_TRACKING_ID = 0x35, 0x36, 0x39
NSLOTS = 10


def log(*a):
    print('[phosh-session %.3f]' % time.monotonic(), *a, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- device description
def bits(nbytes, codes):
    b = bytearray(nbytes)
    for c in codes:
        b[c // 8] |= 1 << (c % 8)
    return bytes(b)


def capstr(nbytes, codes):   # sysfs style: hex longs, most significant first
    b = bits(nbytes, codes)
    longs = [int.from_bytes(b[i:i + 8], 'little') for i in range(0, len(b), 8)]
    while len(longs) > 1 and longs[-1] == 0:
        longs.pop()
    return ' '.join('%x' % l for l in reversed(longs))


class Touchscreen:
    NAME = 'Emulated Touchscreen'
    NUM = 9
    DEVNODE = '/dev/input/event9'
    SYSPARENT = '/devices/platform/i2c-1/i2c-EMUL0001:00'
    KEYS = [BTN_TOUCH]
    ABS = [ABS_X, ABS_Y, ABS_MT_SLOT, ABS_MT_POSITION_X, ABS_MT_POSITION_Y, ABS_MT_TRACKING_ID]
    ID = (0x18, 0x0416, 0x038f, 0x0100)           # BUS_I2C, vendor, product, version

    def __init__(self, w, h):
        # Axis ranges: the output's physical pixels times SUBPIXEL, so that a touch can land
        # between pixels (libinput maps [0, max] onto the output).
        self.w, self.h = w, h
        self.absinfo = {ABS_X: (0, 0, w - 1), ABS_Y: (0, 0, h - 1), ABS_MT_SLOT: (0, 0, NSLOTS - 1),
                        ABS_MT_POSITION_X: (0, 0, w - 1), ABS_MT_POSITION_Y: (0, 0, h - 1),
                        ABS_MT_TRACKING_ID: (0, 0, 65535)}
        # live state, so ioctls (and libevdev's SYN_DROPPED resync) see the truth
        self.slots = {ABS_MT_POSITION_X: [0] * 256, ABS_MT_POSITION_Y: [0] * 256, ABS_MT_TRACKING_ID: [-1] * 256}
        self.cur_slot, self.btn_touch, self.next_id = 0, 0, 1
        self.ioctls = 0
        self.sysfs = '/sys' + self.SYSPARENT + '/input/input%d/event%d' % (self.NUM, self.NUM)

    def umockdev_text(self):
        n, inp = self.NUM, self.SYSPARENT + '/input/input%d' % self.NUM
        props = ['ID_INPUT=1', 'ID_INPUT_TOUCHSCREEN=1', 'ID_BUS=i2c']
        bus, ven, prod, ver = self.ID
        return '\n'.join([
            'P: %s/event%d' % (inp, n), 'N: input/event%d' % n, 'E: DEVNAME=/dev/input/event%d' % n,
            'E: SUBSYSTEM=input', 'E: MAJOR=13', 'E: MINOR=%d' % (64 + n)] + ['E: ' + p for p in props] + [
            'A: dev=13:%d' % (64 + n), 'L: device=../../input%d' % n, '',
            'P: %s' % inp, 'E: SUBSYSTEM=input', 'E: NAME="%s"' % self.NAME,
            'E: PRODUCT=%x/%x/%x/%x' % self.ID, 'E: PROP=%s' % capstr(8, [1]),
            'E: EV=%s' % capstr(8, [EV_SYN, EV_KEY, EV_ABS])] + ['E: ' + p for p in props] + [
            'A: name=%s' % self.NAME, 'A: phys=emul/ts', 'A: uniq=', 'A: properties=%s' % capstr(8, [1]),
            'A: capabilities/ev=%s' % capstr(8, [EV_SYN, EV_KEY, EV_ABS]),
            'A: capabilities/key=%s' % capstr(96, self.KEYS), 'A: capabilities/abs=%s' % capstr(8, self.ABS),
            'A: capabilities/msc=0', 'A: capabilities/rel=0', 'A: capabilities/sw=0', 'A: capabilities/led=0',
            'A: capabilities/snd=0', 'A: capabilities/ff=0',
            'A: id/bustype=%04x' % bus, 'A: id/vendor=%04x' % ven, 'A: id/product=%04x' % prod,
            'A: id/version=%04x' % ver, '']) + '\n'

    # ---- ioctl answers, with exactly the buffer sizes libevdev 1.13 passes
    def ioctl_table(self):
        def ior(nr, size):
            return (2 << 30) | (size << 16) | (ord('E') << 8) | nr
        name = self.NAME.encode() + b'\0'
        phys = b'emul/ts\0'
        t = {
            ior(0x20, 8): (8, bits(8, [EV_SYN, EV_KEY, EV_ABS])),          # EVIOCGBIT(0)
            ior(0x06, 255): (len(name), name.ljust(255, b'\0')),            # EVIOCGNAME
            ior(0x07, 255): (len(phys), phys.ljust(255, b'\0')),            # EVIOCGPHYS
            ior(0x02, 8): (0, struct.pack('<4H', *self.ID)),                # EVIOCGID
            ior(0x01, 4): (0, struct.pack('<i', 0x010001)),                 # EVIOCGVERSION
            ior(0x09, 8): (8, bits(8, [1])),                                # EVIOCGPROP: DIRECT
            ior(0x19, 8): (8, bytes(8)), ior(0x1b, 8): (8, bytes(8)),       # EVIOCGLED, EVIOCGSW
        }
        for typ, nbytes, codes in ((0x02, 8, []), (EV_ABS, 8, self.ABS), (0x11, 8, []), (EV_KEY, 96, self.KEYS),
                                   (0x05, 8, []), (0x04, 8, []), (0x15, 16, []), (0x12, 8, [])):
            t[ior(0x20 + typ, nbytes)] = (nbytes, bits(nbytes, codes))
        return t, ior

    def handler(self):
        table, ior = self.ioctl_table()
        req_key, req_slots = ior(0x18, 96), ior(0x0a, 4 + 4 * 256)
        abs_reqs = {ior(0x40 + c, 24): c for c in self.ABS}
        mt_codes = sorted(self.slots)
        mt_idx = [0]

        def on_ioctl(handler, client):
            self.ioctls += 1
            req = client.get_request() & 0xffffffff
            if req in (0x400445a0, 0x40044590):       # EVIOCSCLOCKID, EVIOCGRAB: accept
                client.complete(0, 0); return True
            if req == req_key:                        # EVIOCGKEY: live BTN_TOUCH
                data = bits(96, [BTN_TOUCH] if self.btn_touch else [])
                client.get_arg().resolve(0, 96).update(0, data); client.complete(96, 0); return True
            if req in abs_reqs:                       # EVIOCGABS(code): value, min, max, fuzz, flat, res
                c = abs_reqs[req]
                val = self.cur_slot if c == ABS_MT_SLOT else 0
                lo, _, hi = self.absinfo[c]
                client.get_arg().resolve(0, 24).update(0, struct.pack('<6i', val, lo, hi, 0, 0, 0))
                client.complete(0, 0); return True
            if req == req_slots:
                # EVIOCGMTSLOTS: the code is in the buffer, but PyGObject cannot read
                # IoctlData.data (no length binding); libevdev asks for every MT axis
                # in ascending code order, so answer in that order.
                code = mt_codes[mt_idx[0] % len(mt_codes)]; mt_idx[0] += 1
                client.get_arg().resolve(0, 1028).update(0, struct.pack('<i256i', code, *self.slots[code]))
                client.complete(0, 0); return True
            ans = table.get(req)
            if ans is None:
                client.complete(-1, 2); return True   # ENOENT (e.g. EVIOCGUNIQ), tolerated
            ret, data = ans
            client.get_arg().resolve(0, len(data)).update(0, data)
            client.complete(ret, 0)
            return True
        h = UMockdev.IoctlBase()
        h.connect('handle-ioctl', on_ioctl)
        return h



class Injector:
    """Writes evdev events to the emulated node's pty; a frame at a time."""

    def __init__(self, ts, fd):
        self.ts, self.fd = ts, fd
        self.pending = []

    def ev(self, typ, code, val):
        t = time.time()
        self.pending.append(struct.pack('<qqHHi', int(t), int((t % 1) * 1e6), typ, code, val))

    def xy(self, x, y):
        px = min(max(int(round(float(x) * SUBPIXEL)), 0), self.ts.w - 1)
        py = min(max(int(round(float(y) * SUBPIXEL)), 0), self.ts.h - 1)
        return px, py

    def slot(self, s):
        if not 0 <= s < NSLOTS:
            raise ValueError('slot out of range')
        if s != self.ts.cur_slot:
            self.ev(EV_ABS, ABS_MT_SLOT, s)
            self.ts.cur_slot = s

    def down(self, s, x, y):
        px, py = self.xy(x, y)
        self.slot(s)
        tid = self.ts.next_id
        self.ts.next_id = (tid + 1) % 65536
        self.ts.slots[ABS_MT_TRACKING_ID][s] = tid
        self.ts.slots[ABS_MT_POSITION_X][s], self.ts.slots[ABS_MT_POSITION_Y][s] = px, py
        self.ev(EV_ABS, ABS_MT_TRACKING_ID, tid)
        self.ev(EV_ABS, ABS_MT_POSITION_X, px)
        self.ev(EV_ABS, ABS_MT_POSITION_Y, py)
        if not self.ts.btn_touch:
            self.ev(EV_KEY, BTN_TOUCH, 1)
            self.ts.btn_touch = 1
        self.ev(EV_ABS, ABS_X, px)
        self.ev(EV_ABS, ABS_Y, py)

    def move(self, s, x, y):
        px, py = self.xy(x, y)
        self.slot(s)
        self.ts.slots[ABS_MT_POSITION_X][s], self.ts.slots[ABS_MT_POSITION_Y][s] = px, py
        self.ev(EV_ABS, ABS_MT_POSITION_X, px)
        self.ev(EV_ABS, ABS_MT_POSITION_Y, py)
        self.ev(EV_ABS, ABS_X, px)
        self.ev(EV_ABS, ABS_Y, py)

    def up(self, s):
        self.slot(s)
        self.ts.slots[ABS_MT_TRACKING_ID][s] = -1
        self.ev(EV_ABS, ABS_MT_TRACKING_ID, -1)
        if all(t == -1 for t in self.ts.slots[ABS_MT_TRACKING_ID][:NSLOTS]):
            self.ev(EV_KEY, BTN_TOUCH, 0)
            self.ts.btn_touch = 0

    def frame(self):
        if not self.pending:
            return
        self.ev(EV_SYN, 0, 0)
        os.write(self.fd, b''.join(self.pending))
        self.pending = []

    def command(self, line):
        a = line.split()
        if not a:
            return 'ok'
        op = a[0]
        if op == 'down':
            self.down(int(a[1]), a[2], a[3])
        elif op == 'motion':
            self.move(int(a[1]), a[2], a[3])
        elif op == 'up':
            self.up(int(a[1]))
        elif op == 'frame':
            self.frame()
        elif op in ('warmup', 'sync'):
            pass
        else:
            return 'err unknown command %r' % op
        return 'ok'


class DirectoryWatch:
    """inotify on directories (files made, written, moved in): a wait that blocks until something
    there changes, instead of polling."""

    IN_MODIFY, IN_CLOSE_WRITE, IN_MOVED_TO, IN_CREATE = 0x2, 0x8, 0x80, 0x100

    def __init__(self, directories):
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        self.fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if self.fd < 0:
            raise SystemExit('inotify_init1: %s' % os.strerror(ctypes.get_errno()))
        mask = self.IN_MODIFY | self.IN_CLOSE_WRITE | self.IN_MOVED_TO | self.IN_CREATE
        for directory in directories:
            if libc.inotify_add_watch(self.fd, os.fsencode(directory), mask) < 0:
                os.close(self.fd)
                raise SystemExit('inotify_add_watch %s: %s' % (directory, os.strerror(ctypes.get_errno())))

    def drain(self):
        try:
            while os.read(self.fd, 65536):
                pass
        except BlockingIOError:
            pass

    def close(self):
        os.close(self.fd)


def wait_for(pred, timeout, what, proc=None, directories=()):
    """Waits until pred() holds, at most timeout seconds: pred is looked at again each time a
    file in `directories` changes (inotify) and when proc ends (its pidfd); nothing polls."""
    import select
    end = time.monotonic() + timeout
    watch = DirectoryWatch(directories)
    pidfd = os.pidfd_open(proc.pid) if proc is not None else None
    try:
        poller = select.poll()
        poller.register(watch.fd, select.POLLIN)
        if pidfd is not None:
            poller.register(pidfd, select.POLLIN)
        while True:
            # Drained before pred() is looked at: a change after that wakes the next poll.
            watch.drain()
            if pred():
                return
            if proc is not None and proc.poll() is not None:
                raise SystemExit('%s: process exited with %s' % (what, proc.returncode))
            left = end - time.monotonic()
            if left <= 0:
                raise SystemExit('timeout waiting for %s (%g s)' % (what, timeout))
            poller.poll(left * 1000)
    finally:
        watch.close()
        if pidfd is not None:
            os.close(pidfd)


def file_has(path, text):
    try:
        with open(path, errors='replace') as f:
            return text in f.read()
    except FileNotFoundError:
        return False


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        raise SystemExit(__doc__)
    D, fifo = os.path.realpath(args[0]), args[1]
    size, scale, with_phosh = '720x1440', 2.0, True
    i = 2
    while i < len(args):
        if args[i] == '--size':
            size = args[i + 1]; i += 2
        elif args[i] == '--scale':
            scale = float(args[i + 1]); i += 2
        elif args[i] == '--no-phosh':
            with_phosh = False; i += 1
        else:
            raise SystemExit('unknown argument ' + args[i])
    W, H = (int(v) for v in size.split('x'))
    xdg = os.environ['XDG_RUNTIME_DIR']
    shim = os.path.join(D, 'phoc_shim.so')
    with open(os.path.join(D, 'phoc.ini'), 'w') as f:
        f.write('[core]\nxwayland=false\n\n[output:HEADLESS-1]\nmode = %dx%d\nscale = %g\n' % (W, H, scale))
    t0 = time.monotonic()

    tb = UMockdev.Testbed.new()
    root = tb.get_root_dir()
    os.makedirs(os.path.join(root, 'dev', 'input'), exist_ok=True)   # so /dev/input is redirected
    ts = Touchscreen(W * SUBPIXEL, H * SUBPIXEL)
    handler = ts.handler()
    tb.attach_ioctl(ts.DEVNODE, handler)   # before the node exists: no open sees it un-emulated

    procs = []

    def stop(*_):
        for p in reversed(procs):
            if p.poll() is None:
                p.terminate()
        for p in reversed(procs):
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill(); p.wait()
        os._exit(0)
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    # phoc. os.environ does not see the UMOCKDEV_DIR Testbed.new() set with setenv(): pass it.
    env = dict(os.environ, UMOCKDEV_DIR=root,
               LD_PRELOAD=shim + ' ' + os.environ['LD_PRELOAD'],
               WLR_BACKENDS='headless,libinput', WLR_RENDERER='pixman',
               WLR_LIBINPUT_NO_DEVICES='1', G_MESSAGES_DEBUG='phoc-input')
    env.pop('WAYLAND_DISPLAY', None)
    env.pop('DISPLAY', None)
    phoc_log = os.path.join(D, 'wm.log')
    # No -S: in shell mode phoc keeps a black shield over the output here even after phosh is up.
    phoc = subprocess.Popen(['phoc', '-C', os.path.join(D, 'phoc.ini')], env=env,
                            stdout=open(phoc_log, 'w'), stderr=subprocess.STDOUT)
    procs.append(phoc)
    sock = os.path.join(xdg, 'wayland-0')
    wait_for(lambda: os.path.exists(sock) and file_has(phoc_log, "Output 'HEADLESS-1' added"), 30,
             'phoc socket', phoc, directories=(xdg, D))
    log('phoc up after %.2f s' % (time.monotonic() - t0))

    # The touchscreen, hot-plugged (add_from_string emits the "add" uevent); "add" again when
    # libinput's monitor was not listening yet.
    tb.add_from_string(ts.umockdev_text())
    for attempt in range(10):
        try:
            wait_for(lambda: file_has(phoc_log, 'New input device: ' + ts.NAME), 1.0, 'touchscreen', phoc,
                     directories=(D,))
            break
        except SystemExit:
            if phoc.poll() is not None or attempt == 9:
                raise
            if ts.ioctls == 0:
                log('re-sending add uevent')
                tb.uevent(ts.sysfs, 'add')
    log('touchscreen in phoc after %.2f s' % (time.monotonic() - t0))
    inj = Injector(ts, tb.get_dev_fd(ts.DEVNODE))

    penv = {k: v for k, v in os.environ.items() if k not in ('LD_PRELOAD', 'UMOCKDEV_DIR')}
    penv.update(WAYLAND_DISPLAY='wayland-0', GDK_BACKEND='wayland', XDG_SESSION_TYPE='wayland',
                XDG_CURRENT_DESKTOP='Phosh:GNOME', NO_AT_BRIDGE='1', GSETTINGS_BACKEND='keyfile',
                G_MESSAGES_DEBUG=(os.environ.get('G_MESSAGES_DEBUG', '') + ' phosh-shell').strip())
    phosh_log = os.path.join(D, 'phosh.log')
    restarting = [False]

    def start_phosh():
        # Appended: a restarted phosh's lines follow the first one's.
        phosh = subprocess.Popen(['/usr/libexec/phosh', '-U'], env=penv,
                                 stdout=open(phosh_log, 'a'), stderr=subprocess.STDOUT)
        procs.append(phosh)
        ups = open(phosh_log, errors='replace').read().count('Notify compositor state: 1')
        wait_for(lambda: open(phosh_log, errors='replace').read().count('Notify compositor state: 1') > ups,
                 60, 'phosh shell up', phosh, directories=(D,))
        return phosh

    def restart_phosh():
        """Kills phosh (SIGKILL, as a crash) and starts it again, as its session does."""
        old = next(p for p in procs if p.args[0] == '/usr/libexec/phosh')
        restarting[0] = True
        try:
            old.kill()
            old.wait(10)
            procs.remove(old)
            start_phosh()
        finally:
            restarting[0] = False
        log('phosh restarted')

    if with_phosh:
        start_phosh()
        log('phosh up after %.2f s' % (time.monotonic() - t0))

    # A child that ends ends the session (its SIGCHLD, while the FIFO is read).
    def child_ended(*_):
        if restarting[0]:
            return
        for p in procs:
            if p.poll() is not None:
                log('%s exited with %s' % (p.args[0], p.returncode))
                stop()
    signal.signal(signal.SIGCHLD, child_ended)
    child_ended()
    fd = os.open(fifo, os.O_RDWR)
    print('ready', flush=True)
    buffered = b''
    while True:
        chunk = os.read(fd, 4096)
        buffered += chunk
        while b'\n' in buffered:
            line, buffered = buffered.split(b'\n', 1)
            try:
                if line.decode().strip() == 'restart-phosh':
                    restart_phosh() if with_phosh else None
                    answer = 'ok' if with_phosh else 'err no phosh in this session'
                else:
                    answer = inj.command(line.decode())
            except (Exception, SystemExit) as e:
                answer = 'err %s' % e
            print(answer, flush=True)


if __name__ == '__main__':
    main()
