#ifndef RESPONDERD_CIIO_H
#define RESPONDERD_CIIO_H

// libiio, loaded on first use (dlopen of libiio.so.0) rather than linked: it brings libxml2, ICU,
// avahi and libusb (about 1.3 MB of resident memory), which a daemon that nobody asks for motion
// does not need. Each rsp_iio_X calls libiio's iio_X; when libiio cannot be loaded, it fails as
// iio_X fails (NULL, a negative error code or false) with errno ENOSYS, and rsp_iio_load_error()
// says why.

#include <iio.h>

/// Loads libiio if it is not yet; 1 when it is there, 0 when it cannot be loaded.
int rsp_iio_load(void);
/// Why libiio could not be loaded (dlerror), or NULL.
const char *rsp_iio_load_error(void);

struct iio_context *rsp_iio_create_local_context(void);
void rsp_iio_context_destroy(struct iio_context *ctx);
unsigned int rsp_iio_context_get_devices_count(const struct iio_context *ctx);
struct iio_device *rsp_iio_context_get_device(const struct iio_context *ctx, unsigned int index);

const char *rsp_iio_device_get_id(const struct iio_device *dev);
const char *rsp_iio_device_get_name(const struct iio_device *dev);
bool rsp_iio_device_is_trigger(const struct iio_device *dev);
unsigned int rsp_iio_device_get_channels_count(const struct iio_device *dev);
struct iio_channel *rsp_iio_device_get_channel(const struct iio_device *dev, unsigned int index);
struct iio_channel *rsp_iio_device_find_channel(const struct iio_device *dev, const char *name, bool output);
ssize_t rsp_iio_device_attr_read(const struct iio_device *dev, const char *attr, char *dst, size_t len);
ssize_t rsp_iio_device_attr_write(const struct iio_device *dev, const char *attr, const char *src);
int rsp_iio_device_buffer_attr_write_longlong(const struct iio_device *dev, const char *attr, long long val);
int rsp_iio_device_set_trigger(const struct iio_device *dev, const struct iio_device *trigger);
struct iio_buffer *rsp_iio_device_create_buffer(const struct iio_device *dev, size_t samples_count, bool cyclic);

const char *rsp_iio_channel_get_id(const struct iio_channel *chn);
bool rsp_iio_channel_is_scan_element(const struct iio_channel *chn);
const char *rsp_iio_channel_attr_get_filename(const struct iio_channel *chn, const char *attr);
ssize_t rsp_iio_channel_attr_read(const struct iio_channel *chn, const char *attr, char *dst, size_t len);
ssize_t rsp_iio_channel_attr_write(const struct iio_channel *chn, const char *attr, const char *src);
int rsp_iio_channel_attr_read_longlong(const struct iio_channel *chn, const char *attr, long long *val);
const struct iio_data_format *rsp_iio_channel_get_data_format(const struct iio_channel *chn);
void rsp_iio_channel_enable(struct iio_channel *chn);
void rsp_iio_channel_disable(struct iio_channel *chn);

int rsp_iio_buffer_get_poll_fd(struct iio_buffer *buf);
int rsp_iio_buffer_set_blocking_mode(struct iio_buffer *buf, bool blocking);
ssize_t rsp_iio_buffer_refill(struct iio_buffer *buf);
void *rsp_iio_buffer_first(const struct iio_buffer *buf, const struct iio_channel *chn);
ptrdiff_t rsp_iio_buffer_step(const struct iio_buffer *buf);
void *rsp_iio_buffer_end(const struct iio_buffer *buf);
void rsp_iio_buffer_destroy(struct iio_buffer *buf);

#endif
