// COM1 console output.
// Polled writes; the caller (printk) serializes whole lines.
#pragma once
#include "types.h"

void serial_init(void);
void serial_putc(char c);
void serial_write(const char *s, size_t n);
