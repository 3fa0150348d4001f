#include <libevdev/libevdev.h>
#include <linux/input.h>

/// The timestamp of an input_event in microseconds. `input_event_sec`/`input_event_usec` are macros that
/// name different fields on 32-bit userspace with a 64-bit time_t, so Swift reads them through this.
static inline long long gestured_input_event_microseconds(const struct input_event *event) {
    return (long long)event->input_event_sec * 1000000LL + (long long)event->input_event_usec;
}
