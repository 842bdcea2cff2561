#include <libevdev/libevdev.h>
#include <linux/input.h>
#include <sys/ioctl.h>

/// EVIOCGKEY: the kernel's current key state of the device (one bit per key code) into `bits`
/// (`length` bytes; 96 covers KEY_MAX). Returns the ioctl's result (-1 and errno on failure).
static inline int rsp_evdev_key_state(int fd, unsigned char *bits, unsigned long length) {
  return ioctl(fd, EVIOCGKEY(length), bits);
}
