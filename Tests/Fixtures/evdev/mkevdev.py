#!/usr/bin/python3
"""Generate umockdev sysfs (.umockdev) + ioctl (.ioctl) descriptions for evdev
devices WITHOUT recording: the ioctl answers are synthesized with exactly the
buffer sizes libevdev 1.13 passes (umockdev's ioctl tree only matches a request
whose _IOC_SIZE equals the recorded data length).

usage: mkevdev.py OUTDIR      -> writes headset, keyboard, jack, touchscreen .{umockdev,ioctl}

Copied from the shared testing recipes (responderd); KEYBOARD and JACK added for the key tests.
"""
import struct
import sys
import os

EV_SYN, EV_KEY, EV_REL, EV_ABS, EV_MSC, EV_SW, EV_LED, EV_SND, EV_REP, EV_FF = 0, 1, 2, 3, 4, 5, 0x11, 0x12, 0x14, 0x15
MSC_SCAN = 4
KEY_MUTE, KEY_VOLUMEDOWN, KEY_VOLUMEUP = 113, 114, 115
KEY_NEXTSONG, KEY_PLAYPAUSE, KEY_PREVIOUSSONG = 163, 164, 165
KEY_MEDIA, KEY_MICMUTE = 226, 248
BTN_TOUCH = 0x14a
ABS_X, ABS_Y = 0, 1
ABS_MT_SLOT, ABS_MT_TOUCH_MAJOR = 0x2F, 0x30
ABS_MT_POSITION_X, ABS_MT_POSITION_Y, ABS_MT_TRACKING_ID = 0x35, 0x36, 0x39
INPUT_PROP_DIRECT = 1
BUS_USB, BUS_I2C = 0x03, 0x18

# byte sizes of the bitmask buffers inside struct libevdev (NLONGS(X_CNT)*8 on LP64)
BITBYTES = {EV_SYN: 8, EV_KEY: 96, EV_REL: 8, EV_ABS: 8, EV_MSC: 8, EV_SW: 8,
            EV_LED: 8, EV_SND: 8, EV_FF: 16}
MT_SLOTS_MAX = 256  # libevdev: struct { int code; int val[MAX_SLOTS]; } -> 1028 bytes


def bits(nbytes, codes):
    b = bytearray(nbytes)
    for c in codes:
        b[c // 8] |= 1 << (c % 8)
    return bytes(b)


def hx(b):
    return b.hex().upper()


def ioctl_text(dev):
    """dev: dict(name, phys, bus, vendor, product, version, props, caps{type:[codes]},
    absinfo{code:(value,min,max,fuzz,flat,res)})"""
    caps = dev['caps']
    out = ['@DEV ' + dev['devnode']]
    ev_types = [EV_SYN] + [t for t in caps if t != EV_SYN]
    out.append('EVIOCGBIT(0) 8 ' + hx(bits(8, ev_types)))
    name = dev['name'].encode() + b'\0'
    out.append('EVIOCGNAME(0) %d %s' % (len(name), hx(name.ljust(255, b'\0'))))
    if dev.get('phys'):
        phys = dev['phys'].encode() + b'\0'
        out.append('EVIOCGPHYS(0) %d %s' % (len(phys), hx(phys.ljust(255, b'\0'))))
    # EVIOCGUNIQ not listed -> umockdev answers -1/ENOENT, which libevdev accepts
    out.append('EVIOCGID 0 ' + hx(struct.pack('<4H', dev['bus'], dev['vendor'], dev['product'], dev['version'])))
    out.append('EVIOCGVERSION 0 ' + hx(struct.pack('<i', 0x010001)))
    out.append('EVIOCGPROP(0) 8 ' + hx(bits(8, dev.get('props', []))))
    for t in (EV_REL, EV_ABS, EV_LED, EV_KEY, EV_SW, EV_MSC, EV_FF, EV_SND):
        out.append('EVIOCGBIT(%d) %d %s' % (t, BITBYTES[t], hx(bits(BITBYTES[t], caps.get(t, [])))))
    out.append('EVIOCGKEY(0) 96 ' + hx(bytes(96)))   # current key state: all up
    out.append('EVIOCGLED(0) 8 ' + hx(bytes(8)))
    out.append('EVIOCGSW(0) 8 ' + hx(bytes(8)))   # switch state: all off
    for code in sorted(caps.get(EV_ABS, [])):
        out.append('EVIOCGABS(%d) 0 %s' % (code, hx(struct.pack('<6i', *dev['absinfo'][code]))))
    abs_codes = caps.get(EV_ABS, [])
    if ABS_MT_SLOT in abs_codes:
        for code in sorted(c for c in abs_codes if ABS_MT_SLOT < c <= 0x3F):
            init = -1 if code == ABS_MT_TRACKING_ID else 0
            out.append('EVIOCGMTSLOTS(0) 0 ' + hx(struct.pack('<i256i', code, *([init] * MT_SLOTS_MAX))))
    return '\n'.join(out) + '\n'


def umockdev_text(dev):
    caps = dev['caps']
    n = dev['num']
    inp = dev['sysparent'] + '/input/input%d' % n
    ev_types = [EV_SYN] + [t for t in caps if t != EV_SYN]

    def capstr(nbytes, codes):  # kernel style: space separated hex longs, most significant first
        b = bits(nbytes, codes)
        longs = [int.from_bytes(b[i:i + 8], 'little') for i in range(0, len(b), 8)]
        while len(longs) > 1 and longs[-1] == 0:
            longs.pop()
        return ' '.join('%x' % l for l in reversed(longs))
    udev = dev.get('udev', [])
    lines = [
        'P: %s/event%d' % (inp, n),
        'N: input/event%d' % n,
        'E: DEVNAME=/dev/input/event%d' % n,
        'E: SUBSYSTEM=input',
        'E: MAJOR=13', 'E: MINOR=%d' % (64 + n),
        'E: ID_INPUT=1',
    ] + ['E: ' + u for u in udev] + [
        'A: dev=13:%d' % (64 + n),
        'L: device=../../input%d' % n,
        '',
        'P: %s' % inp,
        'E: SUBSYSTEM=input',
        'E: NAME="%s"' % dev['name'],
        'E: PRODUCT=%x/%x/%x/%x' % (dev['bus'], dev['vendor'], dev['product'], dev['version']),
        'E: PROP=%s' % capstr(8, dev.get('props', [])),
        'E: EV=%s' % capstr(8, ev_types),
        'E: ID_INPUT=1',
    ] + ['E: ' + u for u in udev] + [
        'A: name=%s' % dev['name'],
        'A: phys=%s' % dev.get('phys', ''),
        'A: uniq=',
        'A: properties=%s' % capstr(8, dev.get('props', [])),
        'A: capabilities/ev=%s' % capstr(8, ev_types),
        'A: capabilities/key=%s' % capstr(96, caps.get(EV_KEY, [])),
        'A: capabilities/abs=%s' % capstr(8, caps.get(EV_ABS, [])),
        'A: capabilities/msc=%s' % capstr(8, caps.get(EV_MSC, [])),
        'A: capabilities/rel=0',
        'A: capabilities/sw=%s' % capstr(8, caps.get(EV_SW, [])),
        'A: capabilities/led=%s' % capstr(8, caps.get(EV_LED, [])),
        'A: capabilities/snd=0', 'A: capabilities/ff=0',
        'A: id/bustype=%04x' % dev['bus'], 'A: id/vendor=%04x' % dev['vendor'],
        'A: id/product=%04x' % dev['product'], 'A: id/version=%04x' % dev['version'],
        '',
    ]
    return '\n'.join(lines) + '\n'


HEADSET = dict(
    num=7, devnode='/dev/input/event7',
    sysparent='/devices/pci0000:00/0000:00:14.0/usb1/1-2/1-2:1.3/0003:046D:0A38.0004',
    name='Logitech USB Headset H340 Consumer Control', phys='usb-0000:00:14.0-2/input3',
    bus=BUS_USB, vendor=0x046d, product=0x0a38, version=0x0111,
    caps={EV_KEY: [KEY_MUTE, KEY_VOLUMEDOWN, KEY_VOLUMEUP, KEY_NEXTSONG, KEY_PLAYPAUSE,
                   KEY_PREVIOUSSONG, KEY_MEDIA, KEY_MICMUTE],
          EV_MSC: [MSC_SCAN]},
    udev=['ID_INPUT_KEY=1', 'ID_BUS=usb', 'ID_USB_INTERFACES=:010100:010200:030000:'],
)

TOUCHSCREEN = dict(
    num=9, devnode='/dev/input/event9',
    sysparent='/devices/platform/AMDI0010:01/i2c-1/i2c-GDIX1002:00',
    name='Goodix Capacitive TouchScreen', phys='input/ts',
    bus=BUS_I2C, vendor=0x0416, product=0x038f, version=0x0100,
    props=[INPUT_PROP_DIRECT],
    caps={EV_KEY: [BTN_TOUCH],
          EV_ABS: [ABS_X, ABS_Y, ABS_MT_SLOT, ABS_MT_POSITION_X, ABS_MT_POSITION_Y, ABS_MT_TRACKING_ID]},
    absinfo={ABS_X: (0, 0, 1079, 0, 0, 0), ABS_Y: (0, 0, 2339, 0, 0, 0),
             ABS_MT_SLOT: (0, 0, 9, 0, 0, 0),
             ABS_MT_POSITION_X: (0, 0, 1079, 0, 0, 0), ABS_MT_POSITION_Y: (0, 0, 2339, 0, 0, 0),
             ABS_MT_TRACKING_ID: (0, 0, 65535, 0, 0, 0)},
    udev=['ID_INPUT_TOUCHSCREEN=1', 'ID_BUS=i2c'],
)

EV_LED_CODES = [0, 1, 2]  # LED_NUML, LED_CAPSL, LED_SCROLLL
KEY_STOPCD, KEY_PLAYCD, KEY_PAUSECD, KEY_FASTFORWARD, KEY_REWIND = 166, 200, 201, 208, 168

# A full USB keyboard with media keys: every key of a 105-key layout (KEY_ESC 1 .. KEY_F12 88,
# KEY_102ND, the keypad and navigation keys up to 127), plus media keys on the same device.
KEYBOARD = dict(
    num=3, devnode='/dev/input/event3',
    sysparent='/devices/pci0000:00/0000:00:14.0/usb1/1-1/1-1:1.0/0003:045E:07F8.0001',
    name='Microsoft Wired Keyboard 600', phys='usb-0000:00:14.0-1/input0',
    bus=BUS_USB, vendor=0x045e, product=0x07f8, version=0x0111,
    caps={EV_KEY: list(range(1, 128)) + [KEY_NEXTSONG, KEY_PLAYPAUSE, KEY_PREVIOUSSONG, KEY_STOPCD,
                                        KEY_PLAYCD, KEY_PAUSECD, KEY_FASTFORWARD, KEY_REWIND, KEY_MEDIA],
          EV_MSC: [MSC_SCAN], EV_LED: EV_LED_CODES},
    udev=['ID_INPUT_KEY=1', 'ID_INPUT_KEYBOARD=1', 'ID_BUS=usb'],
)

# The same keyboard's second USB interface: its multimedia keys arrive on a "Consumer Control"
# input device of their own (no typing key), as with most USB keyboards.
KEYBOARD_CONSUMER = dict(
    KEYBOARD, num=4, devnode='/dev/input/event4',
    sysparent='/devices/pci0000:00/0000:00:14.0/usb1/1-1/1-1:1.1/0003:045E:07F8.0002',
    name='Microsoft Wired Keyboard 600 Consumer Control', phys='usb-0000:00:14.0-1/input1',
    caps={EV_KEY: [KEY_MUTE, KEY_VOLUMEDOWN, KEY_VOLUMEUP, KEY_NEXTSONG, KEY_PLAYPAUSE, KEY_PREVIOUSSONG,
                   KEY_STOPCD, KEY_MEDIA],
          EV_MSC: [MSC_SCAN]},
    udev=['ID_INPUT_KEY=1', 'ID_BUS=usb', 'ID_USB_INTERFACES=:030101:030000:'],
)

# A wired headset's button through the sound card's jack driver (snd_jack: BTN_0 -> KEY_PLAYPAUSE).
SW_HEADPHONE_INSERT, SW_MICROPHONE_INSERT = 2, 4
KEY_VOICECOMMAND = 0x246
JACK = dict(
    num=5, devnode='/dev/input/event5',
    sysparent='/devices/pci0000:00/0000:00:1f.3/sound/card0',
    name='HDA Intel PCH Headphone Mic', phys='ALSA',
    bus=0, vendor=0, product=0, version=0,
    caps={EV_KEY: [KEY_VOLUMEDOWN, KEY_VOLUMEUP, KEY_PLAYPAUSE, KEY_VOICECOMMAND],
          EV_SW: [SW_HEADPHONE_INSERT, SW_MICROPHONE_INSERT]},
    udev=['ID_INPUT_KEY=1', 'ID_INPUT_SWITCH=1'],
)

# The same headset plugged in again: the kernel gives it a new input number.
HEADSET_REPLUGGED = dict(HEADSET, num=8, devnode='/dev/input/event8')

if __name__ == '__main__':
    outdir = sys.argv[1] if len(sys.argv) > 1 else '.'
    os.makedirs(outdir, exist_ok=True)
    for stem, d in (('headset', HEADSET), ('headset-replugged', HEADSET_REPLUGGED), ('keyboard', KEYBOARD), ('keyboard-consumer', KEYBOARD_CONSUMER), ('jack', JACK), ('touchscreen', TOUCHSCREEN)):
        with open(os.path.join(outdir, stem + '.umockdev'), 'w') as f:
            f.write(umockdev_text(d))
        with open(os.path.join(outdir, stem + '.ioctl'), 'w') as f:
            f.write(ioctl_text(d))
        print('wrote', stem)
