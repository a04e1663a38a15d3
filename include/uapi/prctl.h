// prctl(2)'s options this kernel answers, with Linux's values (include/uapi/linux/prctl.h).
// The thread name's size is TASK_COMM_LEN, 16 with its NUL.
#pragma once

#define PR_SET_NAME            15
#define PR_GET_NAME            16
#define PR_SET_CHILD_SUBREAPER 36   // orphans below come to this process (kernel/exit.c)
#define PR_GET_CHILD_SUBREAPER 37
#define TASK_COMM_LEN          16
