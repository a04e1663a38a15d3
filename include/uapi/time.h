// Clock ids and clock_nanosleep's flag with Linux's values (include/uapi/linux/time.h): the
// one definition of each.
#pragma once

#define CLOCK_REALTIME           0
#define CLOCK_MONOTONIC          1
#define CLOCK_PROCESS_CPUTIME_ID 2
#define CLOCK_THREAD_CPUTIME_ID  3
#define CLOCK_MONOTONIC_RAW      4
#define CLOCK_REALTIME_COARSE    5
#define CLOCK_MONOTONIC_COARSE   6
#define CLOCK_BOOTTIME           7
#define TIMER_ABSTIME            1

// setitimer(2)'s timers (include/uapi/linux/time.h).
#define ITIMER_REAL              0
#define ITIMER_VIRTUAL           1
#define ITIMER_PROF              2
