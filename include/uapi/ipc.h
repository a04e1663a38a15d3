// System V IPC's ABI with Linux's values (include/uapi/linux/ipc.h, shm.h, sem.h, and the
// x86-64 layouts of asm/shmbuf.h and asm/sembuf.h): the flags, the commands, the structures
// shmctl and semctl copy, and the limits Linux has by default.
#pragma once
#include "types.h"

#define IPC_PRIVATE 0
#define IPC_CREAT   01000
#define IPC_EXCL    02000
#define IPC_NOWAIT  04000
#define IPC_RMID    0
#define IPC_SET     1
#define IPC_STAT    2
#define IPC_INFO    3

#define SHM_RDONLY  010000
#define SHM_RND     020000
#define SHM_REMAP   040000
#define SHM_EXEC    0100000
#define SHM_LOCK    11
#define SHM_UNLOCK  12
#define SHM_STAT    13
#define SHM_INFO    14
#define SHM_STAT_ANY 15

#define SEM_UNDO    0x1000
#define GETPID      11
#define GETVAL      12
#define GETALL      13
#define GETNCNT     14
#define GETZCNT     15
#define SETVAL      16
#define SETALL      17
#define SEM_STAT    18
#define SEM_INFO    19
#define SEM_STAT_ANY 20

// Linux's defaults since 3.16 (include/uapi/linux/shm.h, sem.h), but the number of segments
// and of semaphore sets: 4096 each here (IPC_MNI), ENOSPC past it.
#define SHMMIN 1
#define SHMMAX (~0UL - (1UL << 24))
#define IPC_MNI 4096
#define SEMMSL 32000   // semaphores in a set
#define SEMOPM 500     // operations in one semop
#define SEMVMX 32767   // a semaphore's largest value
#define SEMAEM SEMVMX  // an undo adjustment's largest

struct ipc64_perm {
  s32 key;
  u32 uid, gid, cuid, cgid;
  u16 mode;
  u8 pad1[2];
  u16 seq;
  u16 pad2;
  u64 unused1, unused2;
};

struct shmid64_ds {
  struct ipc64_perm shm_perm;
  u64 shm_segsz;
  s64 shm_atime, shm_dtime, shm_ctime;
  s32 shm_cpid, shm_lpid;
  u64 shm_nattch;
  u64 unused4, unused5;
};

struct shminfo64 {
  u64 shmmax, shmmin, shmmni, shmseg, shmall;
  u64 unused1, unused2, unused3, unused4;
};

struct shm_info {
  s32 used_ids;
  u64 shm_tot, shm_rss, shm_swp, swap_attempts, swap_successes;
};

struct semid64_ds {
  struct ipc64_perm sem_perm;
  s64 sem_otime;
  u64 unused1;
  s64 sem_ctime;
  u64 unused2;
  u64 sem_nsems;
  u64 unused3, unused4;
};

struct seminfo {
  s32 semmap, semmni, semmns, semmnu, semmsl, semopm, semume, semusz, semvmx, semaem;
};

struct sembuf {
  u16 sem_num;
  s16 sem_op;
  s16 sem_flg;
};
