// Host test for kernel/lib/mktime.c: every day from 1600 to 2500 and random times against the
// C library's timegm, and the RTC's register formats (BCD, binary, 12-hour, century, garbage).
#define _GNU_SOURCE
#include <stdlib.h>
#include <time.h>

#include "check.h"
#include "rtc.h"

static time_t
host_time(int y, int m, int d, int hh, int mm, int ss)
{
  struct tm t = { .tm_year = y - 1900, .tm_mon = m - 1, .tm_mday = d, .tm_hour = hh,
                  .tm_min = mm, .tm_sec = ss };
  return timegm(&t);
}

static u8
bcd(int v)
{
  return (u8)((v / 10) << 4 | v % 10);
}

// Decodes r and compares with the date expected (ok false: the decode must refuse it).
static void
decode_is(struct rtc_regs r, bool ok, int y, int m, int d, int hh, int mm, int ss)
{
  struct rtc_time tm;
  bool got = rtc_decode(&r, &tm);
  CHECK(got == ok);
  if(ok && got) {
    CHECK(tm.year == y && tm.mon == m && tm.mday == d);
    CHECK(tm.hour == hh && tm.min == mm && tm.sec == ss);
    CHECK(rtc_tm_to_time64(&tm) == host_time(y, m, d, hh, mm, ss));
  }
}

int
main(void)
{
  // Every day, by walking the host's calendar one day at a time from 1600-01-01.
  long days = 0;
  for(time_t t = host_time(1600, 1, 1, 0, 0, 0); t < host_time(2500, 1, 1, 0, 0, 0); t += 86400) {
    struct tm g;
    gmtime_r(&t, &g);
    if(days_from_civil(g.tm_year + 1900, g.tm_mon + 1, g.tm_mday) * 86400 != t) {
      CHECK(!"days_from_civil agrees with timegm");
      break;
    }
    days++;
  }
  CHECK(days == 328719);   // 900 * 365 + 219 leap days: 225 of 1600..2496, not 1700 ... 2300
  CHECK(days_from_civil(1970, 1, 1) == 0);
  CHECK(days_from_civil(2000, 3, 1) - days_from_civil(2000, 2, 28) == 2);   // 2000 is leap
  CHECK(days_from_civil(2100, 3, 1) - days_from_civil(2100, 2, 28) == 1);   // 2100 is not
  CHECK(days_from_civil(2024, 3, 1) - days_from_civil(2024, 2, 28) == 2);
  CHECK(days_from_civil(1969, 12, 31) == -1);

  // Random seconds of 1900..2400.
  srand(1);
  for(int i = 0; i < 100000; i++) {
    int y = 1900 + rand() % 500, m = 1 + rand() % 12, d = 1 + rand() % 28;
    struct rtc_time tm = { y, m, d, rand() % 24, rand() % 60, rand() % 60 };
    if(rtc_tm_to_time64(&tm) != host_time(y, m, d, tm.hour, tm.min, tm.sec)) {
      CHECK(!"rtc_tm_to_time64 agrees with timegm");
      break;
    }
  }

  // BCD, 24-hour, no century register: 20yy.
  decode_is((struct rtc_regs){ bcd(0), bcd(30), bcd(4), bcd(2), bcd(12), bcd(26), 0, RTC_24H },
            true, 2026, 12, 2, 4, 30, 0);
  // The century register (BCD 20) and the leap days of 2000 and 2100.
  decode_is((struct rtc_regs){ bcd(59), bcd(59), bcd(23), bcd(29), bcd(2), bcd(0), bcd(20),
                               RTC_24H }, true, 2000, 2, 29, 23, 59, 59);
  decode_is((struct rtc_regs){ 0, 0, 0, bcd(29), bcd(2), bcd(0), bcd(21), RTC_24H },
            false, 0, 0, 0, 0, 0, 0);
  decode_is((struct rtc_regs){ 0, 0, 0, bcd(28), bcd(2), bcd(0), bcd(21), RTC_24H },
            true, 2100, 2, 28, 0, 0, 0);
  decode_is((struct rtc_regs){ 1, 2, 3, 31, 12, 99, 19, RTC_24H | RTC_BIN },
            true, 1999, 12, 31, 3, 2, 1);
  // 12-hour: 12 AM is midnight, 12 PM noon, 1 PM 13:00; in BCD and binary.
  decode_is((struct rtc_regs){ 0, 0, bcd(12), 1, 1, bcd(30), 0, 0 }, true, 2030, 1, 1, 0, 0, 0);
  decode_is((struct rtc_regs){ 0, 0, 0x80 | bcd(12), 1, 1, bcd(30), 0, 0 },
            true, 2030, 1, 1, 12, 0, 0);
  decode_is((struct rtc_regs){ 0, 0, 0x80 | 1, 1, 1, 30, 0, RTC_BIN },
            true, 2030, 1, 1, 13, 0, 0);
  decode_is((struct rtc_regs){ 0, 0, 11, 1, 1, 30, 0, RTC_BIN }, true, 2030, 1, 1, 11, 0, 0);
  decode_is((struct rtc_regs){ 0, 0, 0, 1, 1, 30, 0, RTC_BIN }, false, 0, 0, 0, 0, 0, 0);
  // Garbage: an absent chip (all 0xff), a BCD nibble above 9, month 13, day 31 of April,
  // hour 24, minute 60.
  decode_is((struct rtc_regs){ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }, false,
            0, 0, 0, 0, 0, 0);
  decode_is((struct rtc_regs){ 0x1a, 0, 0, 1, 1, 0, 0, RTC_24H }, false, 0, 0, 0, 0, 0, 0);
  decode_is((struct rtc_regs){ 0, 0, 0, 1, bcd(13), 0, 0, RTC_24H }, false, 0, 0, 0, 0, 0, 0);
  decode_is((struct rtc_regs){ 0, 0, 0, bcd(31), bcd(4), 0, 0, RTC_24H }, false, 0, 0, 0, 0, 0, 0);
  decode_is((struct rtc_regs){ 0, 0, 24, 1, 1, 0, 0, RTC_24H | RTC_BIN }, false, 0, 0, 0, 0, 0, 0);
  decode_is((struct rtc_regs){ 0, 60, 0, 1, 1, 0, 0, RTC_24H | RTC_BIN }, false, 0, 0, 0, 0, 0, 0);
  return check_summary("test_mktime");
}
