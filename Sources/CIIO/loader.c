#include "CIIO.h"

#include <CLibraryLoader.h>

static rsp_library libiio = {.soname = "libiio.so.0"};

int rsp_iio_load(void) { return rsp_library_load(&libiio); }

const char *rsp_iio_load_error(void) { return libiio.error; }

#define FORWARD(type, fail, name, params, args) RSP_FORWARD(libiio, type, fail, name, params, args)
#define FORWARD_VOID(name, params, args) RSP_FORWARD_VOID(libiio, name, params, args)

FORWARD(struct iio_context *, NULL, iio_create_local_context, (void), ())
FORWARD_VOID(iio_context_destroy, (struct iio_context *ctx), (ctx))
FORWARD(unsigned int, 0, iio_context_get_devices_count, (const struct iio_context *ctx), (ctx))
FORWARD(struct iio_device *, NULL, iio_context_get_device, (const struct iio_context *ctx, unsigned int index),
        (ctx, index))

FORWARD(const char *, NULL, iio_device_get_id, (const struct iio_device *dev), (dev))
FORWARD(const char *, NULL, iio_device_get_name, (const struct iio_device *dev), (dev))
FORWARD(bool, false, iio_device_is_trigger, (const struct iio_device *dev), (dev))
FORWARD(unsigned int, 0, iio_device_get_channels_count, (const struct iio_device *dev), (dev))
FORWARD(struct iio_channel *, NULL, iio_device_get_channel, (const struct iio_device *dev, unsigned int index),
        (dev, index))
FORWARD(struct iio_channel *, NULL, iio_device_find_channel,
        (const struct iio_device *dev, const char *name, bool output), (dev, name, output))
FORWARD(ssize_t, -ENOSYS, iio_device_attr_read, (const struct iio_device *dev, const char *attr, char *dst, size_t len),
        (dev, attr, dst, len))
FORWARD(ssize_t, -ENOSYS, iio_device_attr_write, (const struct iio_device *dev, const char *attr, const char *src),
        (dev, attr, src))
FORWARD(int, -ENOSYS, iio_device_buffer_attr_write_longlong,
        (const struct iio_device *dev, const char *attr, long long val), (dev, attr, val))
FORWARD(int, -ENOSYS, iio_device_set_trigger, (const struct iio_device *dev, const struct iio_device *trigger),
        (dev, trigger))
FORWARD(struct iio_buffer *, NULL, iio_device_create_buffer,
        (const struct iio_device *dev, size_t samples_count, bool cyclic), (dev, samples_count, cyclic))

FORWARD(const char *, NULL, iio_channel_get_id, (const struct iio_channel *chn), (chn))
FORWARD(bool, false, iio_channel_is_scan_element, (const struct iio_channel *chn), (chn))
FORWARD(const char *, NULL, iio_channel_attr_get_filename, (const struct iio_channel *chn, const char *attr),
        (chn, attr))
FORWARD(ssize_t, -ENOSYS, iio_channel_attr_read,
        (const struct iio_channel *chn, const char *attr, char *dst, size_t len), (chn, attr, dst, len))
FORWARD(ssize_t, -ENOSYS, iio_channel_attr_write, (const struct iio_channel *chn, const char *attr, const char *src),
        (chn, attr, src))
FORWARD(int, -ENOSYS, iio_channel_attr_read_longlong,
        (const struct iio_channel *chn, const char *attr, long long *val), (chn, attr, val))
FORWARD(const struct iio_data_format *, NULL, iio_channel_get_data_format, (const struct iio_channel *chn), (chn))
FORWARD_VOID(iio_channel_enable, (struct iio_channel *chn), (chn))
FORWARD_VOID(iio_channel_disable, (struct iio_channel *chn), (chn))

FORWARD(int, -ENOSYS, iio_buffer_get_poll_fd, (struct iio_buffer *buf), (buf))
FORWARD(int, -ENOSYS, iio_buffer_set_blocking_mode, (struct iio_buffer *buf, bool blocking), (buf, blocking))
FORWARD(ssize_t, -ENOSYS, iio_buffer_refill, (struct iio_buffer *buf), (buf))
FORWARD(void *, NULL, iio_buffer_first, (const struct iio_buffer *buf, const struct iio_channel *chn), (buf, chn))
FORWARD(ptrdiff_t, 0, iio_buffer_step, (const struct iio_buffer *buf), (buf))
FORWARD(void *, NULL, iio_buffer_end, (const struct iio_buffer *buf), (buf))
FORWARD_VOID(iio_buffer_destroy, (struct iio_buffer *buf), (buf))
