/*
 * gesture-latency: a gestured client that measures, for every `update` gesture event it receives, the time
 * from the kernel timestamp of the input frame that caused it (the event's "time", CLOCK_MONOTONIC on a
 * live device: the moment evemu-play wrote the event into the evdev node) to the moment this client's
 * read() returned it, on the same clock. Prints one line per update: "<microseconds> <gesture id>".
 *
 * usage: gesture-latency SOCKET    (runs until killed; output is line-buffered)
 *
 * Built by tests/vm/run.sh on the host and run in the rig's guest. Speaks the socket protocol of
 * docs/protocol.md with no library: read the hello, send a subscribe request, read JSON lines.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: gesture-latency SOCKET\n");
        return 2;
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (fd < 0 || strlen(argv[1]) >= sizeof addr.sun_path) {
        fprintf(stderr, "gesture-latency: socket: %s\n", strerror(errno));
        return 1;
    }
    strcpy(addr.sun_path, argv[1]);
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        fprintf(stderr, "gesture-latency: connect %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    static const char subscribe[] = "{\"type\":\"subscribe\"}\n";
    if (write(fd, subscribe, sizeof subscribe - 1) != (ssize_t)(sizeof subscribe - 1)) {
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
            if (strstr(line, "\"type\":\"gesture\"") && strstr(line, "\"phase\":\"update\"")) {
                double t = number_after(line, "\"time\":");
                long long id = (long long)number_after(line, "\"id\":");
                printf("%.0f %lld\n", (received - t) * 1e6, id);
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
