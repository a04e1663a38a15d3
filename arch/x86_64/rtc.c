// The CMOS real-time clock (MC146818A and compatibles) read once at boot: CLOCK_REALTIME is
// that date plus the TSC's nanoseconds since (kernel/time.c).
#include "printk.h"
#include "rtc.h"
#include "time.h"
#include <asm/acpi.h>
#include <asm/x86.h>

#define CMOS_INDEX   0x70   // bit 7 would mask NMIs: kept clear, as Linux's CMOS_READ does
#define CMOS_DATA    0x71
#define RTC_STATUS_A 0x0a
#define RTC_UIP      0x80   // status A bit 7: an update is under way, the registers may be torn
#define RTC_STATUS_B 0x0b

static u8
cmos_read(u8 reg)
{
  outb(CMOS_INDEX, reg);
  return inb(CMOS_DATA);
}

// The update cycle sets UIP 244 us before it changes the registers and holds it for 2 ms at
// most (data sheet, "Update cycle"): wait for it to clear (a second or so covers a host that
// descheduled us), then read every register.
static bool
rtc_read_once(struct rtc_regs *r)
{
  u64 give_up = ktime_ns() + 2 * NSEC_PER_SEC;
  while(cmos_read(RTC_STATUS_A) & RTC_UIP)
    if(ktime_ns() > give_up)
      return false;
  r->sec = cmos_read(0x00);
  r->min = cmos_read(0x02);
  r->hour = cmos_read(0x04);
  r->mday = cmos_read(0x07);
  r->mon = cmos_read(0x08);
  r->year = cmos_read(0x09);
  r->century = acpi.century ? cmos_read(acpi.century) : 0;
  r->status_b = cmos_read(RTC_STATUS_B);
  return true;
}

static bool
same_regs(const struct rtc_regs *a, const struct rtc_regs *b)
{
  return a->sec == b->sec && a->min == b->min && a->hour == b->hour && a->mday == b->mday &&
         a->mon == b->mon && a->year == b->year && a->century == b->century &&
         a->status_b == b->status_b;
}

// Reads until two reads in a row agree: an update (or a descheduled vCPU) between the UIP
// test and the last register shows as a difference (Linux's mc146818_get_time reads twice
// for the same reason). Then the wall clock starts at that second.
void
rtc_init(void)
{
  struct rtc_regs a, b;
  struct rtc_time tm;
  bool agreed = false;
  if(rtc_read_once(&a))
    for(int i = 0; i < 10 && !agreed; i++) {
      if(!rtc_read_once(&b))
        break;
      agreed = same_regs(&a, &b);
      a = b;
    }
  u64 now = ktime_ns();
  if(!agreed || !rtc_decode(&a, &tm)) {
    pr_err("rtc: no valid time (%s; registers %02x:%02x:%02x %02x-%02x-%02x, status B %#x):"
           " CLOCK_REALTIME starts at 1970-01-01\n", agreed ? "out of range" : "unsettled",
           a.hour, a.min, a.sec, a.year, a.mon, a.mday, a.status_b);
    realtime_set(now);
    return;
  }
  s64 sec = rtc_tm_to_time64(&tm);
  realtime_set((u64)sec * NSEC_PER_SEC);
  pr_info("rtc: %04d-%02d-%02d %02d:%02d:%02d UTC (unix %ld; %s, %s-hour, century %s)\n",
          tm.year, tm.mon, tm.mday, tm.hour, tm.min, tm.sec, sec,
          a.status_b & RTC_BIN ? "binary" : "BCD", a.status_b & RTC_24H ? "24" : "12",
          acpi.century ? "from CMOS (FADT)" : "assumed 20");
}
