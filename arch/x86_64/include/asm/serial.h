// COM1: the console. Polled writes (the caller, printk, serializes whole lines); received
// bytes by interrupt while rx_start's function wants them.
#pragma once
#include "types.h"

void serial_init(void);
void serial_putc(char c);
void serial_write(const char *s, size_t n);
// fn gets each received byte, in interrupt context, until serial_rx_stop.
void serial_rx_start(void (*fn)(u8 c));
void serial_rx_stop(void);
