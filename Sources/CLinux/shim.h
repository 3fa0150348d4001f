// Linux headers Glibc's Swift module leaves out: epoll, timerfd, signalfd (used by GestureDaemon's event
// loop), mallopt and the peer-credentials struct, which glibc only declares under _GNU_SOURCE.
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>
#include <malloc.h>
#include <sys/inotify.h>

/// Same layout as `struct ucred` (SO_PEERCRED), declared here because glibc hides it without _GNU_SOURCE.
struct gestured_peer_credentials {
    pid_t pid;
    uid_t uid;
    gid_t gid;
};

/// accept4(2), which glibc declares only under _GNU_SOURCE.
extern int accept4(int sockfd, struct sockaddr *addr, socklen_t *addrlen, int flags);

/// Socket type flags as plain ints (glibc declares them as an enum plus macros, which Swift imports
/// inconsistently across modules).
static const int gestured_sock_stream = SOCK_STREAM;
static const int gestured_sock_dgram = SOCK_DGRAM;
static const int gestured_sock_nonblock = SOCK_NONBLOCK;
static const int gestured_sock_cloexec = SOCK_CLOEXEC;

/// memfd_create(2), which glibc declares only under _GNU_SOURCE (gesturectl's keymap for the compositor).
extern int memfd_create(const char *name, unsigned int flags);
static const unsigned int gestured_mfd_cloexec = 0x0001U;
static const unsigned int gestured_mfd_allow_sealing = 0x0002U;

/// SO_PEERGROUPS (Linux 4.13), which older headers lack.
#ifdef SO_PEERGROUPS
static const int gestured_so_peergroups = SO_PEERGROUPS;
#else
static const int gestured_so_peergroups = 59;
#endif

/// mkostemp(3), which glibc declares only under _GNU_SOURCE (gesturectl tune's new file beside the
/// configuration).
extern int mkostemp(char *template_, int flags);

/// flock(2), whose name Swift imports as `struct flock`'s initializer.
#include <sys/file.h>
static inline int gestured_flock(int fd, int operation) { return flock(fd, operation); }
static const int gestured_lock_ex = LOCK_EX;
static const int gestured_lock_nb = LOCK_NB;
