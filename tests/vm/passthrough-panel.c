/*
 * passthrough-panel: a uinput touchscreen driven from standard input, for the passthrough checks. Events
 * are written through the uinput descriptor (like a driver), so they reach the panel even while gestured
 * grabs it (writes into a grabbed evdev node, as evemu-play does, are dropped by the kernel).
 *
 * usage: passthrough-panel NAME
 *   Creates a touchscreen called NAME: 10 slots, 0..1000 x 0..1600 at 10 units/mm (100 x 160 mm),
 *   INPUT_PROP_DIRECT, BTN_TOUCH, ABS_X/ABS_Y, no ABS_MT_TOOL_TYPE, phys passthrough-panel/input0; prints
 *   its event node on a line. Then
 *   reads commands, one a line, and answers each with one line:
 *     play FILE           write the E: lines of an evemu event file, paced by their timestamps -> "played N"
 *     latency NODE N      N frames of one finger sliding in the middle, one at a time, each read back from
 *                         NODE (the panel itself: a plain reader, the floor; or gestured's copy of it) by a
 *                         reader in a separate process (as any client is: its wake-up is part of the path)
 *                         -> "latency NODE <frames read> <p50 us> <p99 us> <max us>": from just before the
 *                         write to the moment the reader's read() returned the frame, CLOCK_MONOTONIC
 *     land NODE N X Y     N touches landing at (X, Y) (X and X+1 in turn, so each landing changes X) and
 *                         lifting, one at a time: the delay of each landing frame as for latency (a
 *                         touch gestured forwards at its landing, such as one in an excluded part of an
 *                         edge, against the floor of a plain reader) -> "land NODE <read> <p50> <p99> <max>"
 *   EOF destroys the panel (an unplug).
 *
 * The X position of each latency frame carries its sequence number, so a frame is recognised on the other
 * side whatever else the reader sees. Built by tests/vm/run.sh on the host and run in the rig's guest.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <linux/uinput.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static void die(const char *what) {
    fprintf(stderr, "passthrough-panel: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void axis(int fd, int code, int min, int max, int resolution) {
    struct uinput_abs_setup setup = {.code = code, .absinfo = {.minimum = min, .maximum = max, .resolution = resolution}};
    if (ioctl(fd, UI_SET_ABSBIT, code) < 0 || ioctl(fd, UI_ABS_SETUP, &setup) < 0) die("UI_ABS_SETUP");
}

static int ui = -1;

static void emit(const struct input_event *events, size_t n) {
    if (write(ui, events, n * sizeof *events) != (ssize_t)(n * sizeof *events)) die("write");
}

static int compare(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* Plays the E: lines of an evemu file, sleeping between frames as their timestamps say. */
static long play(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[512];
    long count = 0;
    long long previous = -1;
    while (fgets(line, sizeof line, f)) {
        long long sec, usec;
        unsigned type, code;
        int value;
        if (sscanf(line, "E: %lld.%lld %x %x %d", &sec, &usec, &type, &code, &value) != 5) continue;
        long long t = sec * 1000000LL + usec;
        if (previous >= 0 && t > previous) usleep((useconds_t)(t - previous));
        previous = t;
        struct input_event e = {.type = (unsigned short)type, .code = (unsigned short)code, .value = value};
        emit(&e, 1);
        count++;
    }
    fclose(f);
    return count;
}

/* What the latency reader tells the writer: the X value of a frame it read and when read() returned it. */
struct seen {
    int x;
    long long at;
};

/* The reader: a separate process, as any client of the node is, so a frame's path is the same as for any
 * reader (a wake-up of another process included). Reports every ABS_MT_POSITION_X it reads on `out`;
 * x = -1 once it has the node open. Exits when the writer closes the pipe. */
static void reader(const char *node, int out) {
    int rd = open(node, O_RDONLY | O_CLOEXEC);
    struct seen ready = {.x = -1, .at = 0};
    if (rd < 0) ready.x = -2;
    if (write(out, &ready, sizeof ready) != sizeof ready || rd < 0) _exit(1);
    struct input_event in[64];
    for (;;) {
        ssize_t n = read(rd, in, sizeof in);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) _exit(0);
        long long at = now_us();
        for (ssize_t k = 0; k < n / (ssize_t)sizeof *in; k++) {
            struct seen s = {.x = in[k].value, .at = at};
            /* A lift is reported as x = -3, so a landing's delay is timed only once the last touch has gone. */
            if (in[k].type == EV_ABS && in[k].code == ABS_MT_TRACKING_ID && in[k].value == -1) s.x = -3;
            else if (!(in[k].type == EV_ABS && in[k].code == ABS_MT_POSITION_X)) continue;
            if (write(out, &s, sizeof s) != sizeof s) _exit(0);
        }
    }
}

/* Starts the reader of `node` in a child process; *from is where it reports. Returns the child, or 0 when it
 * could not open the node (the child is gone then). */
static pid_t start_reader(const char *node, int *from) {
    int p[2];
    if (pipe(p) != 0) die("pipe");
    pid_t child = fork();
    if (child < 0) die("fork");
    if (child == 0) {
        close(p[0]);
        close(ui);
        reader(node, p[1]);
    }
    close(p[1]);
    struct seen s;
    if (read(p[0], &s, sizeof s) != sizeof s || s.x != -1) {
        close(p[0]);
        waitpid(child, NULL, 0);
        return 0;
    }
    *from = p[0];
    return child;
}

static void stop_reader(pid_t child, int from) {
    close(from);
    kill(child, SIGTERM);
    waitpid(child, NULL, 0);
}

/* Waits up to a second for the reader to report `x`; its time in *at. Returns 0 when it did not come. */
static int await_seen(int from, int x, long long *at) {
    struct seen s;
    for (;;) {
        struct pollfd pf = {.fd = from, .events = POLLIN};
        if (poll(&pf, 1, 1000) <= 0 || read(from, &s, sizeof s) != sizeof s) return 0;
        if (s.x == x) {
            *at = s.at;
            return 1;
        }
    }
}

/* `land`: each landing frame's delay from the write to the reader's read(), the touch lifted and its lift
 * read back before the next. */
static void landings(const char *node, int count, int x0, int y, int *tracking) {
    static long long delays[100000];
    if (count < 1 || count > 100000) {
        printf("land %s bad-count\n", node);
        return;
    }
    int from = -1, received = 0;
    pid_t child = start_reader(node, &from);
    if (child) {
        for (int i = 0; i < count; i++) {
            int x = x0 + (i % 2);
            struct input_event down[] = {
                {.type = EV_ABS, .code = ABS_MT_SLOT, .value = 0},
                {.type = EV_ABS, .code = ABS_MT_TRACKING_ID, .value = (*tracking)++},
                {.type = EV_ABS, .code = ABS_MT_POSITION_X, .value = x},
                {.type = EV_ABS, .code = ABS_MT_POSITION_Y, .value = y},
                {.type = EV_KEY, .code = BTN_TOUCH, .value = 1},
                {.type = EV_ABS, .code = ABS_X, .value = x},
                {.type = EV_ABS, .code = ABS_Y, .value = y},
                {.type = EV_SYN, .code = SYN_REPORT, .value = 0},
            };
            long long sent = now_us(), at = 0;
            emit(down, sizeof down / sizeof *down);
            if (!await_seen(from, x, &at)) break;
            delays[received++] = at - sent;
            struct input_event up[] = {
                {.type = EV_ABS, .code = ABS_MT_TRACKING_ID, .value = -1},
                {.type = EV_KEY, .code = BTN_TOUCH, .value = 0},
                {.type = EV_SYN, .code = SYN_REPORT, .value = 0},
            };
            emit(up, 3);
            if (!await_seen(from, -3, &at)) break;
        }
        stop_reader(child, from);
    }
    if (received == 0) {
        printf("land %s 0 - - -\n", node);
        return;
    }
    qsort(delays, (size_t)received, sizeof *delays, compare);
    printf("land %s %d %lld %lld %lld\n", node, received, delays[received / 2], delays[(received * 99) / 100],
           delays[received - 1]);
}

static void latency(const char *node, int frames, int *tracking) {
    static long long delays[100000];
    if (frames < 1 || frames > 100000) {
        printf("latency %s bad-frame-count\n", node);
        return;
    }
    int from = -1;
    pid_t child = start_reader(node, &from);
    if (!child) {
        printf("latency %s cannot-open\n", node);
        return;
    }
    struct seen s;
    struct input_event down[] = {
        {.type = EV_ABS, .code = ABS_MT_SLOT, .value = 0},
        {.type = EV_ABS, .code = ABS_MT_TRACKING_ID, .value = (*tracking)++},
        {.type = EV_ABS, .code = ABS_MT_POSITION_X, .value = 100},
        {.type = EV_ABS, .code = ABS_MT_POSITION_Y, .value = 800},
        {.type = EV_KEY, .code = BTN_TOUCH, .value = 1},
        {.type = EV_ABS, .code = ABS_X, .value = 100},
        {.type = EV_ABS, .code = ABS_Y, .value = 800},
        {.type = EV_SYN, .code = SYN_REPORT, .value = 0},
    };
    emit(down, sizeof down / sizeof *down);
    /* The landing comes through (x = 100) before the frames are timed. */
    for (;;) {
        struct pollfd pf = {.fd = from, .events = POLLIN};
        if (poll(&pf, 1, 2000) <= 0 || read(from, &s, sizeof s) != sizeof s || s.x == 100) break;
    }
    int received = 0;
    for (int i = 0; i < frames; i++) {
        int x = 200 + (i % 600); /* the middle of the panel, away from the edge zones */
        struct input_event move[] = {
            {.type = EV_ABS, .code = ABS_MT_POSITION_X, .value = x},
            {.type = EV_ABS, .code = ABS_X, .value = x},
            {.type = EV_SYN, .code = SYN_REPORT, .value = 0},
        };
        long long sent = now_us();
        emit(move, 3);
        int got = 0;
        while (!got) {
            struct pollfd pf = {.fd = from, .events = POLLIN};
            if (poll(&pf, 1, 1000) <= 0 || read(from, &s, sizeof s) != sizeof s) break;
            if (s.x == x) {
                delays[received++] = s.at - sent;
                got = 1;
            }
        }
        if (!got) break; /* a frame lost for a second: the reader gets nothing; report what came */
    }
    struct input_event up[] = {
        {.type = EV_ABS, .code = ABS_MT_TRACKING_ID, .value = -1},
        {.type = EV_KEY, .code = BTN_TOUCH, .value = 0},
        {.type = EV_SYN, .code = SYN_REPORT, .value = 0},
    };
    emit(up, 3);
    usleep(50000);
    stop_reader(child, from);
    if (received == 0) {
        printf("latency %s 0 - - -\n", node);
        return;
    }
    qsort(delays, (size_t)received, sizeof *delays, compare);
    printf("latency %s %d %lld %lld %lld\n", node, received, delays[received / 2], delays[(received * 99) / 100],
           delays[received - 1]);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: passthrough-panel NAME\n");
        return 2;
    }
    ui = open("/dev/uinput", O_WRONLY | O_CLOEXEC);
    if (ui < 0) die("/dev/uinput");
    if (ioctl(ui, UI_SET_EVBIT, EV_KEY) < 0 || ioctl(ui, UI_SET_EVBIT, EV_ABS) < 0 || ioctl(ui, UI_SET_KEYBIT, BTN_TOUCH) < 0
        || ioctl(ui, UI_SET_PROPBIT, INPUT_PROP_DIRECT) < 0)
        die("UI_SET_*BIT");
    axis(ui, ABS_X, 0, 1000, 10);
    axis(ui, ABS_Y, 0, 1600, 10);
    axis(ui, ABS_MT_SLOT, 0, 9, 0);
    axis(ui, ABS_MT_POSITION_X, 0, 1000, 10);
    axis(ui, ABS_MT_POSITION_Y, 0, 1600, 10);
    axis(ui, ABS_MT_TRACKING_ID, 0, 65535, 0);
    /* A phys, as real panels have: libinput's udev rules derive the panel's device group from it, and the
     * copy must carry that group. */
    if (ioctl(ui, UI_SET_PHYS, "passthrough-panel/input0") < 0) die("UI_SET_PHYS");
    struct uinput_setup setup = {.id = {.bustype = BUS_VIRTUAL, .vendor = 0x1234, .product = 0x5678, .version = 1}};
    snprintf(setup.name, sizeof setup.name, "%s", argv[1]);
    if (ioctl(ui, UI_DEV_SETUP, &setup) < 0 || ioctl(ui, UI_DEV_CREATE) < 0) die("UI_DEV_CREATE");
    char sysname[64] = "";
    if (ioctl(ui, UI_GET_SYSNAME(sizeof sysname), sysname) < 0) die("UI_GET_SYSNAME");
    char node[128] = "";
    for (int attempt = 0; attempt < 500 && !node[0]; attempt++) {
        for (int n = 0; n < 1024 && !node[0]; n++) {
            char path[256];
            snprintf(path, sizeof path, "/sys/devices/virtual/input/%s/event%d", sysname, n);
            if (access(path, F_OK) == 0) snprintf(node, sizeof node, "/dev/input/event%d", n);
        }
        if (!node[0]) usleep(10000);
    }
    if (!node[0]) die("finding the event node");
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("%s\n", node);

    char line[512];
    int tracking = 1000;
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = '\0';
        char arg[400];
        int n, x, y;
        if (sscanf(line, "play %399s", arg) == 1) {
            long count = play(arg);
            if (count < 0) printf("cannot-play %s %s\n", arg, strerror(errno));
            else printf("played %ld\n", count);
        } else if (sscanf(line, "latency %399s %d", arg, &n) == 2) {
            latency(arg, n, &tracking);
        } else if (sscanf(line, "land %399s %d %d %d", arg, &n, &x, &y) == 4) {
            landings(arg, n, x, y, &tracking);
        } else {
            printf("unknown-command %s\n", line);
        }
    }
    ioctl(ui, UI_DEV_DESTROY);
    close(ui);
    return 0;
}
