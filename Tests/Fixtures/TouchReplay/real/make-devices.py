#!/usr/bin/env python3
"""Writes umockdev descriptions (.umockdev sysfs, .ioctl answers) of real panels of this corpus,
from the device description at the top of their recordings (N:, I:, P:, B:, A: lines), so that
TouchDispatchDeviceTests can play a real recording through the live reader (umockdev -> libevdev
-> the event loop). The ioctl answers have the sizes libevdev 1.13 asks for
(Tests/Fixtures/evdev/mkevdev.py, whose writers this uses).

usage: make-devices.py      (writes atmel-maxtouch.* and n-trig.* beside this script)
"""
import importlib.util
import os

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("mkevdev", os.path.join(HERE, "../../evdev/mkevdev.py"))
mkevdev = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mkevdev)

DEVICES = {
    # stem: (recording holding the description, event number, sysfs parent, bus name)
    "atmel-maxtouch": ("atmel-maxtouch.fast-taps.evemu", 11,
                       "/devices/platform/80860F41:01/i2c-1/1-004a", "i2c"),
    "n-trig": ("n-trig.1-finger-drag-nw-se.evemu", 12,
               "/devices/pci0000:00/0000:00:1d.0/usb2/2-1/2-1:1.0/0003:1B96:0001.0001", "usb"),
}


def description(path):
    dev = {"caps": {}, "absinfo": {}, "props": []}
    bits = {}
    for line in open(path, encoding="utf-8"):
        tag, _, body = line.partition(":")
        body = body.split("#")[0].strip() if tag != "N" else body.strip()
        if tag == "N":
            dev["name"] = body
        elif tag == "I":
            bus, vendor, product, version = (int(v, 16) for v in body.split())
            dev.update(bus=bus, vendor=vendor, product=product, version=version)
        elif tag == "P":
            data = bytes(int(v, 16) for v in body.split())
            dev["props"] += [i * 8 + b for i, byte in enumerate(data) for b in range(8) if byte >> b & 1]
        elif tag == "B":
            fields = body.split()
            bits.setdefault(int(fields[0], 16), bytearray()).extend(int(v, 16) for v in fields[1:])
        elif tag == "A":
            f = [int(v) if i else int(v, 16) for i, v in enumerate(body.split())]
            code, lo, hi, fuzz, flat = f[:5]
            res = f[5] if len(f) > 5 else 0
            dev["absinfo"][code] = (0, lo, hi, fuzz, flat, res)
    for ev_type, data in bits.items():
        codes = [i * 8 + b for i, byte in enumerate(data) for b in range(8) if byte >> b & 1]
        if ev_type != 0 and codes:
            dev["caps"][ev_type] = codes
    # Only what libevdev reads for a touchscreen: keys, absolute axes, misc.
    dev["caps"] = {t: c for t, c in dev["caps"].items() if t in (mkevdev.EV_KEY, mkevdev.EV_ABS, mkevdev.EV_MSC)}
    return dev


def main():
    for stem, (recording, num, parent, bus) in DEVICES.items():
        dev = description(os.path.join(HERE, recording))
        dev.update(num=num, devnode="/dev/input/event%d" % num, sysparent=parent, phys="",
                   udev=["ID_INPUT_TOUCHSCREEN=1", "ID_BUS=" + bus])
        with open(os.path.join(HERE, stem + ".umockdev"), "w") as f:
            f.write(mkevdev.umockdev_text(dev))
        with open(os.path.join(HERE, stem + ".ioctl"), "w") as f:
            f.write(mkevdev.ioctl_text(dev))


if __name__ == "__main__":
    main()
