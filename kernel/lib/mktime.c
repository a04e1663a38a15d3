// Calendar arithmetic for the wall clock: RTC registers to a date, a date to Unix time.
// Portable and pure, so the host test checks it against the C library's timegm.
#include "rtc.h"

static int
bcd2bin(u8 v)
{
  return (v & 0x0f) + (v >> 4) * 10;
}

static bool
bcd_ok(u8 v)
{
  return (v & 0x0f) <= 9 && (v >> 4) <= 9;
}

static bool
leap(s64 y)
{
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int
days_in_month(s64 y, int m)
{
  static const u8 days[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
  return days[m - 1] + (m == 2 && leap(y));
}

// Field by field: in BCD mode every byte must be two decimal digits. In 12-hour mode bit 7
// of the hour register is PM and the hour runs 12, 1, ..., 11 (data sheet, table 3), so 12 AM
// is 0:00 and 12 PM is 12:00.
bool
rtc_decode(const struct rtc_regs *r, struct rtc_time *tm)
{
  bool bin = r->status_b & RTC_BIN;
  u8 hour = r->hour, pm = 0;
  if(!(r->status_b & RTC_24H)) {
    pm = hour & 0x80;
    hour &= 0x7f;
  }
  u8 f[7] = { r->sec, r->min, hour, r->mday, r->mon, r->year, r->century };
  int v[7];
  for(int i = 0; i < 7; i++) {
    if(!bin && !bcd_ok(f[i]))
      return false;
    v[i] = bin ? f[i] : bcd2bin(f[i]);
  }
  if(!(r->status_b & RTC_24H)) {
    if(v[2] < 1 || v[2] > 12)
      return false;
    v[2] = v[2] % 12 + (pm ? 12 : 0);
  }
  int century = r->century ? v[6] : 20;
  *tm = (struct rtc_time){ century * 100 + v[5], v[4], v[3], v[2], v[1], v[0] };
  return v[0] <= 59 && v[1] <= 59 && v[2] <= 23 && v[4] >= 1 && v[4] <= 12 && v[5] <= 99 &&
         century >= 19 && century <= 99 && v[3] >= 1 &&
         v[3] <= days_in_month(tm->year, tm->mon);
}

// Howard Hinnant's days_from_civil ("chrono-Compatible Low-Level Date Algorithms"): count
// years from March, so that February, with its leap day, ends the year; a 400-year era has
// 146097 days, and within it the day of the era is 365 a year plus the leap days so far.
s64
days_from_civil(s64 y, int m, int d)
{
  y -= m <= 2;
  s64 era = (y >= 0 ? y : y - 399) / 400;
  s64 yoe = y - era * 400;                            // [0, 399]
  s64 doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;   // [0, 365], from March 1
  s64 doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;    // [0, 146096]
  return era * 146097 + doe - 719468;                 // 719468: 0000-03-01 to 1970-01-01
}

s64
rtc_tm_to_time64(const struct rtc_time *tm)
{
  return days_from_civil(tm->year, tm->mon, tm->mday) * 86400 + tm->hour * 3600 +
         tm->min * 60 + tm->sec;
}
