// printk: kernel log lines with a level, kept in a ring buffer and written to the console.
// The level picks what reaches the console; it is never printed (doc/console.md: no level tags).
#pragma once
#include "compiler.h"
#include "types.h"

#define KERN_SOH     "\001"
#define KERN_EMERG   KERN_SOH "0"
#define KERN_ALERT   KERN_SOH "1"
#define KERN_CRIT    KERN_SOH "2"
#define KERN_ERR     KERN_SOH "3"
#define KERN_WARNING KERN_SOH "4"
#define KERN_NOTICE  KERN_SOH "5"
#define KERN_INFO    KERN_SOH "6"
#define KERN_DEBUG   KERN_SOH "7"

#define LOG_BUF_SIZE (1 << 17)

int printk(const char *fmt, ...) __printf(1, 2);
void printk_panic_mode(void);
// Bytes for the terminal exactly as given (a program's output and echo once the console is in
// use as a terminal: drivers/tty/tty.c), into the log too; the next printk line starts on a line of its own.
void console_write_raw(const char *s, size_t n);
// One console line of any length, s[0..n) with the timestamp before and a newline after, whole:
// no other line starts inside it (a user program's line: drivers/tty/console.c).
void printk_line(const char *s, size_t n);

#define pr_err(fmt, ...) printk(KERN_ERR fmt, ##__VA_ARGS__)
#define pr_warn(fmt, ...) printk(KERN_WARNING fmt, ##__VA_ARGS__)
#define pr_info(fmt, ...) printk(KERN_INFO fmt, ##__VA_ARGS__)
