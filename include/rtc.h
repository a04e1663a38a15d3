// The wall clock: an MC146818 RTC's registers decoded into a date, and a date into seconds
// since 1970-01-01 UTC (kernel/lib/mktime.c, host-tested); arch/x86_64/rtc.c reads the chip.
#pragma once
#include "types.h"

// The time registers as read from the chip, and status register B (MC146818A data sheet:
// 0x00 seconds, 0x02 minutes, 0x04 hours, 0x07 day of month, 0x08 month, 0x09 year, 0x0b B).
struct rtc_regs {
  u8 sec, min, hour, mday, mon, year;
  u8 century;    // the register the FADT names, 0 when it names none
  u8 status_b;
};

#define RTC_24H 0x02   // status B bit 1: hours count 0-23, else 1-12 with bit 7 for PM
#define RTC_BIN 0x04   // status B bit 2 (DM): binary registers, else BCD

struct rtc_time {
  int year;      // e.g. 2026
  int mon;       // 1-12
  int mday;      // 1-31
  int hour, min, sec;
};

// Decodes BCD or binary, 12- or 24-hour registers into *tm; with no century register the
// year is 20yy. False when a field is out of range (a chip that is absent reads 0xff).
bool rtc_decode(const struct rtc_regs *r, struct rtc_time *tm);
// Days from 1970-01-01 to y-m-d of the proleptic Gregorian calendar (negative before).
s64 days_from_civil(s64 y, int m, int d);
// Seconds since 1970-01-01 00:00:00 UTC (Linux's rtc_tm_to_time64).
s64 rtc_tm_to_time64(const struct rtc_time *tm);
