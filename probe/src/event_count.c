/* How many hardware events a core PMU counts at once, measured (issue 37: doctor lists "the
 * PMU, its counters"). Arm's sysfs does not say (only the boot log: "enabled with
 * armv8_pmuv3_0 PMU driver, 7 counters available"), nor does x86's in general; and what a
 * run can count is what is free, less a counter the NMI watchdog holds.
 *
 * Method: on a thread pinned to the CPU, a pinned group (perf_event_open(2): a pinned group
 * that cannot go on the PMU is put in an error state, and read() then returns 0 bytes) of a
 * cycles leader and n - 1 instruction-count members, enabled over a short busy loop, for
 * n = 1, 2, ...: the largest n whose group ran the whole time (time_running == time_enabled
 * > 0) is the number of events counted at once. On Arm PMUv3 that is the general counters plus
 * the cycle counter; on x86 the general counters plus the fixed ones cycles and instructions
 * use. User space only, as the runs count. */
#include <errno.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "event_count.h"
#include "exec.h"

#define MAX_AT_ONCE 32

static int open_one(uint64_t config, int group, int pinned)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_HARDWARE;
    a.config = config;
    a.disabled = group < 0;
    a.pinned = (unsigned)pinned;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    return (int)syscall(SYS_perf_event_open, &a, 0, -1, group, 0);
}

static volatile uint64_t spin_sink;

/* 1 when a group of n events ran its whole time, 0 when it did not, -errno when it could
 * not be opened at all. */
static int group_runs(int n)
{
    int fds[MAX_AT_ONCE], opened = 0, ran = 0;
    fds[0] = open_one(PERF_COUNT_HW_CPU_CYCLES, -1, 1);
    if (fds[0] < 0)
        return -errno;
    for (opened = 1; opened < n; opened++) {
        fds[opened] = open_one(PERF_COUNT_HW_INSTRUCTIONS, fds[0], 0);
        if (fds[opened] < 0)
            break;
    }
    if (opened == n) {
        ioctl(fds[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
        for (uint64_t i = 0; i < 200000; i++)
            spin_sink += i;
        ioctl(fds[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
        uint64_t buf[3 + MAX_AT_ONCE];
        ssize_t got = read(fds[0], buf, sizeof buf);
        /* nr, time_enabled, time_running, then the values */
        ran = got >= (ssize_t)(3 * sizeof(uint64_t)) && buf[0] == (uint64_t)n && buf[1] > 0 && buf[2] == buf[1];
    }
    for (int i = 0; i < opened; i++)
        close(fds[i]);
    return ran;
}

int events_at_once(int cpu, char *why, size_t whylen)
{
    cpu_set_t was, one;
    why[0] = 0;
    if (sched_getaffinity(0, sizeof was, &was) != 0)
        CPU_ZERO(&was);
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0) {
        snprintf(why, whylen, "cannot run on CPU %d: %s", cpu, strerror(errno));
        return -1;
    }
    int best = 0;
    for (int n = 1; n <= MAX_AT_ONCE; n++) {
        int r = group_runs(n);
        if (r < 0) {
            int e = -r;
            if (n == 1)
                snprintf(why, whylen, "%s", e == ENOENT || e == EOPNOTSUPP || e == ENODEV
                         ? "no hardware events here (no core PMU: perf_event_open gives ENOENT)"
                         : e == EACCES || e == EPERM
                         ? "counting is not allowed: perf_event_paranoid too high for this user (run as root, "
                           "or sysctl kernel.perf_event_paranoid=1, or CAP_PERFMON)"
                         : strerror(e));
            break;
        }
        if (!r)
            break;
        best = n;
    }
    if (CPU_COUNT(&was))
        sched_setaffinity(0, sizeof was, &was);
    if (best == 0 && !why[0])
        snprintf(why, whylen, "not even one event ran its whole time (the PMU is held by another user?)");
    return best > 0 ? best : -1;
}
