/* How many hardware events a core PMU counts at once, measured (issue 37: doctor lists "the
 * PMU, its counters"). Arm's sysfs does not say (only the boot log: "enabled with
 * armv8_pmuv3_0 PMU driver, 7 counters available"), nor does x86's in general; and what a
 * run can count is what is free, less a counter the NMI watchdog holds.
 *
 * Method: on a thread pinned to the CPU, a pinned group of a cycles leader and n - 1
 * instruction-count members, enabled over a short busy loop, for n = 1, 2, ...: the largest n
 * whose group ran the whole time (time_running == time_enabled > 0) is the number of events
 * counted at once. A group that cannot go on the PMU ends the search either way the kernel
 * says it: a member refused at open (arm_pmu's and x86's validate_group: EINVAL when the group
 * cannot fit the counters even all free), or a pinned group put in its error state when it is
 * scheduled (perf_event_open(2), "pinned": read() then returns 0 bytes, and time_running
 * stays 0 on kernels before that rule).
 *
 * The events are the run's own (event_resolve): on an Arm core PMU CPU_CYCLES (0x11) and
 * INST_RETIRED (0x08) as raw events of the CPU's own PMU type, so that a big.LITTLE CPU is
 * measured on its own PMU and not on whichever one took a generic event; there the count is
 * the general counters plus the cycle counter. Elsewhere (x86) the kernel's generic cycles and
 * instructions: the general counters plus the fixed counters those two can use, less one the
 * NMI watchdog holds. User space only, as the runs count. */
#include "event_count.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "event_source.h"
#include "exec.h"
#include "jsonl.h"

#define MAX_AT_ONCE 32
#define INST_RETIRED 0x08     /* PMUv3 common event (Arm ARM D17.11) */
#define PMUS_MAX 8

static int open_one(uint32_t type, uint64_t config, int group)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = type;
    a.config = config;
    a.disabled = group < 0;
    a.pinned = group < 0;     /* only a leader may be pinned; its members go with it */
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    return (int)syscall(SYS_perf_event_open, &a, 0, -1, group, 0);
}

static volatile uint64_t spin_sink;

/* 1 when a group of n events ran its whole time, 0 when it did not, -errno when its leader
 * could not be opened at all. */
static int group_runs(const struct event_attr *cycles, uint64_t instructions, int n)
{
    int fds[MAX_AT_ONCE], opened, ran = 0;
    fds[0] = open_one(cycles->type, cycles->config, -1);
    if (fds[0] < 0)
        return -errno;
    for (opened = 1; opened < n; opened++) {
        fds[opened] = open_one(cycles->type, instructions, fds[0]);
        if (fds[opened] < 0)
            break;
    }
    if (opened == n) {
        ioctl(fds[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
        for (uint64_t i = 0; i < 200000; i++)
            spin_sink += i;
        ioctl(fds[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
        uint64_t buf[3 + MAX_AT_ONCE];      /* nr, time_enabled, time_running, the values */
        ssize_t got = read(fds[0], buf, sizeof buf);
        ran = got >= (ssize_t)(3 * sizeof(uint64_t)) && buf[0] == (uint64_t)n && buf[1] > 0 && buf[2] == buf[1];
    }
    for (int i = 0; i < opened; i++)
        close(fds[i]);
    return ran;
}

static void why_not(int e, char *why, size_t whylen)
{
    if (e == ENOENT || e == EOPNOTSUPP || e == ENODEV)
        snprintf(why, whylen, "no hardware events here (no core PMU: perf_event_open gives %s)",
                 e == ENOENT ? "ENOENT" : e == ENODEV ? "ENODEV" : "EOPNOTSUPP");
    else if (e == EACCES || e == EPERM)
        snprintf(why, whylen, "counting is not allowed: perf_event_paranoid too high for this user (as root: "
                 "sysctl kernel.perf_event_paranoid=1, or run as root, or give the probe CAP_PERFMON)");
    else
        snprintf(why, whylen, "perf_event_open gives %s", strerror(e));
}

/* The largest group of cycles and instructions that ran, from 1 up. */
static int largest_group(int cpu, char *why, size_t whylen)
{
    static const struct event_def cycles_def = {
        .name = "cycles", .asked = "cycles", .arm = "CPU_CYCLES", .arm_number = 0x11,
        .generic_type = PERF_TYPE_HARDWARE, .generic_config = PERF_COUNT_HW_CPU_CYCLES};
    struct event_attr cycles;
    if (event_resolve(&cycles_def, cpu, &cycles, why, whylen) != 0)
        return -1;
    uint64_t instructions = cycles.type == PERF_TYPE_HARDWARE ? PERF_COUNT_HW_INSTRUCTIONS : INST_RETIRED;
    int best = 0;
    for (int n = 1; n <= MAX_AT_ONCE; n++) {
        int r = group_runs(&cycles, instructions, n);
        if (r < 0 && n == 1)
            why_not(-r, why, whylen);
        if (r <= 0)
            break;
        best = n;
    }
    if (best == 0 && !why[0])
        snprintf(why, whylen, "not even one event ran its whole time (the PMU is held by another user?)");
    return best > 0 ? best : -1;
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
    int best = largest_group(cpu, why, whylen);
    if (CPU_COUNT(&was))
        sched_setaffinity(0, sizeof was, &was);
    return best;
}

void pmu_counters_jw(void)
{
    int cpus[PROBE_MAX_CPUS], n = cpus_online(cpus, PROBE_MAX_CPUS);
    char seen[PMUS_MAX][48], pmu[48], why[256];
    int nseen = 0;
    jw_array("pmu_counters");
    for (int i = 0; i < n && nseen < PMUS_MAX; i++) {
        if (event_core_pmu(cpus[i], pmu, sizeof pmu) != 0)
            pmu[0] = 0;
        int known = 0;
        for (int j = 0; j < nseen; j++)
            known |= strcmp(seen[j], pmu) == 0;
        if (known)         /* one measurement per PMU; no named PMU (x86): the first CPU's */
            continue;
        snprintf(seen[nseen++], sizeof seen[0], "%s", pmu);
        int at_once = events_at_once(cpus[i], why, sizeof why);
        jw_element_object();
        if (pmu[0])
            jw_str("pmu", pmu);
        jw_int("cpu", cpus[i]);
        if (at_once > 0)
            jw_int("at_once", at_once);
        else
            jw_str("why", why);
        jw_object_end();
    }
    jw_array_end();
}
