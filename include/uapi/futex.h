// futex(2)'s operations and flags with Linux's values (include/uapi/linux/futex.h): the one
// definition of each.
#pragma once

#define FUTEX_WAIT           0
#define FUTEX_WAKE           1
#define FUTEX_WAIT_BITSET    9
#define FUTEX_WAKE_BITSET    10
#define FUTEX_PRIVATE_FLAG   128
#define FUTEX_CLOCK_REALTIME 256
#define FUTEX_CMD_MASK       0x7f   // the operation without the two flags above
