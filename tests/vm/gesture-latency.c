/*
 * gesture-latency: the rig's latency probes, one per mode, all on CLOCK_MONOTONIC and line-buffered, each
 * running until killed.
 *
 * usage: gesture-latency SOCKET [--no-updates]
 *   A gestured client. For every gesture event it reads it prints "<phase> <microseconds> <gesture id>":
 *   the time from the kernel timestamp of the input frame that caused the event (the event's "time", the
 *   moment evemu-play wrote the frame into the evdev node) to the moment this client's read() returned it.
 *   With --no-updates it subscribes with "updates":false (what a client acting on release asks for, and the
 *   same work lisgd does): begin, end and cancel only. Prints "subscribed" on stderr once subscribed.
 *
 * usage: gesture-latency --device NODE [--held]
 *   The floor: a plain reader of the input device. For every frame it prints "frame <microseconds>": the
 *   time from the frame's kernel timestamp (its SYN_REPORT's, on CLOCK_MONOTONIC: EVIOCSCLOCKID) to the
 *   moment read() returned it. Prints "opened" on stderr once the clock is set.
 *   With --held it keeps those lines in memory and writes them only when sent SIGUSR1, followed by a line
 *   "held <frames>", so that a frame costs it one read() and one clock read and no write: its CPU per frame
 *   is then the least any reader woken by the device pays (tests/vm/guest/tests/35-cost.sh reports it).
 *   A SIGUSR1 that lands between the check for it and read() blocking is acted on at the next wake-up
 *   (a frame or another SIGUSR1): 35-cost.sh sends it again until the "held" line appears.
 *
 * usage: gesture-latency --relay NODE SOCKET
 *   The least a daemon between the panel and a client can do: reads the device as the floor reader does,
 *   listens on SOCKET, and for every frame sends the one client it accepted a gesture-like line of the size
 *   of gestured's updates carrying the frame's kernel timestamp ("time") - no recognizer, no JSON encoder,
 *   one blocking read() and one send() a wake-up. `gesture-latency SOCKET` reads it as it reads gestured, so
 *   its latency above the floor is the cost of one hop through a process, and its CPU a frame what such a
 *   hop costs the relaying process. Prints "listening" on stderr once the socket is ready, "accepted" once
 *   the client is connected.
 *
 * Built by tests/vm/run.sh on the host and run in the rig's guest. Speaks the socket protocol of
 * docs/protocol.md with no library: read the hello, send a subscribe request, read JSON lines.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static double monotonic_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The number after "key": in a one-line JSON object, or -1 when the key is absent. */
static double number_after(const char *line, const char *key) {
    const char *p = strstr(line, key);
    if (!p) return -1;
    return strtod(p + strlen(key), NULL);
}

static volatile sig_atomic_t held_wanted;
static void want_held(int signal) { (void)signal; held_wanted = 1; }

/* --held: the latencies read since the last SIGUSR1, written when the next one comes. */
static long *held;
static size_t held_count, held_capacity;

static void hold(long microseconds) {
    if (held_count == held_capacity) {
        held_capacity = held_capacity ? 2 * held_capacity : 4096;
        held = realloc(held, held_capacity * sizeof *held);
        if (!held) { fprintf(stderr, "gesture-latency: out of memory\n"); exit(1); }
    }
    held[held_count++] = microseconds;
}

static void write_held(void) {
    for (size_t i = 0; i < held_count; i++) printf("frame %ld\n", held[i]);
    printf("held %zu\n", held_count);
    fflush(stdout);
    held_count = 0;
}

static int read_device(const char *node, int keep) {
    int fd = open(node, O_RDONLY | O_CLOEXEC);
    int clock = CLOCK_MONOTONIC;
    if (fd < 0 || ioctl(fd, EVIOCSCLOCKID, &clock) != 0) {
        fprintf(stderr, "gesture-latency: %s: %s\n", node, strerror(errno));
        return 1;
    }
    if (keep) {
        /* No SA_RESTART: the signal ends a waiting read() with EINTR, and the lines are written then. */
        struct sigaction action = {.sa_handler = want_held};
        sigemptyset(&action.sa_mask);
        sigaction(SIGUSR1, &action, NULL);
        setvbuf(stdout, NULL, _IOFBF, 1 << 16);
    } else {
        setvbuf(stdout, NULL, _IOLBF, 0);
    }
    fprintf(stderr, "gesture-latency: opened\n");
    struct input_event events[256];
    for (;;) {
        if (held_wanted) { held_wanted = 0; write_held(); }
        ssize_t n = read(fd, events, sizeof events);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            fprintf(stderr, "gesture-latency: %s: %s\n", node, n < 0 ? strerror(errno) : "end of file");
            return n < 0 && errno == ENODEV ? 0 : 1;
        }
        double received = monotonic_seconds();
        for (ssize_t i = 0; i < n / (ssize_t)sizeof *events; i++) {
            const struct input_event *e = &events[i];
            if (e->type == EV_SYN && e->code == SYN_REPORT) {
                double t = (double)e->input_event_sec + (double)e->input_event_usec / 1e6;
                long microseconds = (long)((received - t) * 1e6 + 0.5);
                if (keep) hold(microseconds); else printf("frame %ld\n", microseconds);
            }
        }
    }
}

static int read_socket(const char *path, int updates) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (fd < 0 || strlen(path) >= sizeof addr.sun_path) {
        fprintf(stderr, "gesture-latency: socket: %s\n", strerror(errno));
        return 1;
    }
    strcpy(addr.sun_path, path);
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        fprintf(stderr, "gesture-latency: connect %s: %s\n", path, strerror(errno));
        return 1;
    }
    /* Every gesture, app touches too (one-finger taps, holds and pans away from the edges): the probe runs as
     * root, who may see them, and measures every gesture the replay makes. */
    const char *subscribe = updates ? "{\"type\":\"subscribe\",\"app_touches\":true}\n"
                                    : "{\"type\":\"subscribe\",\"app_touches\":true,\"updates\":false}\n";
    if (write(fd, subscribe, strlen(subscribe)) != (ssize_t)strlen(subscribe)) {
        fprintf(stderr, "gesture-latency: write: %s\n", strerror(errno));
        return 1;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);

    static char buffer[1 << 20];
    size_t used = 0;
    for (;;) {
        ssize_t n = read(fd, buffer + used, sizeof buffer - 1 - used);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            fprintf(stderr, "gesture-latency: the daemon closed the connection (%s)\n", n < 0 ? strerror(errno) : "EOF");
            return 1;
        }
        double received = monotonic_seconds();
        used += (size_t)n;
        buffer[used] = '\0';
        char *line = buffer, *newline;
        while ((newline = strchr(line, '\n')) != NULL) {
            *newline = '\0';
            if (strstr(line, "\"type\":\"gesture\"")) {
                static const char *const phases[] = {"begin", "update", "end", "cancel"};
                for (size_t i = 0; i < sizeof phases / sizeof *phases; i++) {
                    char quoted[32];
                    snprintf(quoted, sizeof quoted, "\"phase\":\"%s\"", phases[i]);
                    if (!strstr(line, quoted)) continue;
                    double t = number_after(line, "\"time\":");
                    long long id = (long long)number_after(line, "\"id\":");
                    printf("%s %.0f %lld\n", phases[i], (received - t) * 1e6, id);
                }
            } else if (strstr(line, "\"type\":\"subscribed\"")) {
                fprintf(stderr, "gesture-latency: subscribed\n");
            }
            line = newline + 1;
        }
        used = strlen(line);
        memmove(buffer, line, used);
        if (used >= sizeof buffer - 1) used = 0; /* a line longer than 1 MiB: not the protocol; drop it */
    }
}

/* gestured's update lines are about 300 bytes (a pan's, with its position, velocity, centroid and fingers). */
#define RELAY_LINE_BYTES 300

static int relay(const char *node, const char *path) {
    int device = open(node, O_RDONLY | O_CLOEXEC);
    int clock = CLOCK_MONOTONIC;
    if (device < 0 || ioctl(device, EVIOCSCLOCKID, &clock) != 0) {
        fprintf(stderr, "gesture-latency: %s: %s\n", node, strerror(errno));
        return 1;
    }
    int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (listener < 0 || strlen(path) >= sizeof addr.sun_path) {
        fprintf(stderr, "gesture-latency: socket %s: %s\n", path, listener < 0 ? strerror(errno) : "path too long");
        return 1;
    }
    strcpy(addr.sun_path, path);
    unlink(path);
    if (bind(listener, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(listener, 1) != 0) {
        fprintf(stderr, "gesture-latency: bind/listen %s: %s\n", path, strerror(errno));
        return 1;
    }
    fprintf(stderr, "gesture-latency: listening\n");
    int client = accept(listener, NULL, NULL);
    if (client < 0) {
        fprintf(stderr, "gesture-latency: accept: %s\n", strerror(errno));
        return 1;
    }
    fprintf(stderr, "gesture-latency: accepted\n");
    /* The client's subscribe request is left unread: the relay has nothing to choose. */
    static const char subscribed[] = "{\"type\":\"subscribed\"}\n";
    if (send(client, subscribed, sizeof subscribed - 1, MSG_NOSIGNAL) != (ssize_t)sizeof subscribed - 1) {
        fprintf(stderr, "gesture-latency: send: %s\n", strerror(errno));
        return 1;
    }
    struct input_event events[256];
    static char out[256 * RELAY_LINE_BYTES];
    unsigned long frames = 0;
    for (;;) {
        ssize_t n = read(device, events, sizeof events);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            fprintf(stderr, "gesture-latency: %s: %s\n", node, n < 0 ? strerror(errno) : "end of file");
            return n < 0 && errno == ENODEV ? 0 : 1;
        }
        size_t used = 0;
        for (ssize_t i = 0; i < n / (ssize_t)sizeof *events; i++) {
            const struct input_event *e = &events[i];
            if (e->type != EV_SYN || e->code != SYN_REPORT) continue;
            int length = snprintf(out + used, RELAY_LINE_BYTES, "{\"type\":\"gesture\",\"phase\":\"update\",\"id\":%lu,\"time\":%ld.%06ld,\"pad\":\"",
                                  ++frames, (long)e->input_event_sec, (long)e->input_event_usec);
            memset(out + used + length, 'x', RELAY_LINE_BYTES - 3 - length);
            memcpy(out + used + RELAY_LINE_BYTES - 3, "\"}\n", 3);
            used += RELAY_LINE_BYTES;
        }
        if (used == 0) continue;
        if (send(client, out, used, MSG_NOSIGNAL) != (ssize_t)used) {
            fprintf(stderr, "gesture-latency: send: %s\n", strerror(errno));
            return errno == EPIPE ? 0 : 1;
        }
    }
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "--device") == 0) return read_device(argv[2], 0);
    if (argc == 4 && strcmp(argv[1], "--device") == 0 && strcmp(argv[3], "--held") == 0) return read_device(argv[2], 1);
    if (argc == 4 && strcmp(argv[1], "--relay") == 0) return relay(argv[2], argv[3]);
    if (argc == 2) return read_socket(argv[1], 1);
    if (argc == 3 && strcmp(argv[2], "--no-updates") == 0) return read_socket(argv[1], 0);
    fprintf(stderr, "usage: gesture-latency SOCKET [--no-updates] | gesture-latency --device NODE [--held]"
                    " | gesture-latency --relay NODE SOCKET\n");
    return 2;
}
