// Linux's NUMA memory policy ABI (include/uapi/linux/mempolicy.h): get_mempolicy(2)'s modes
// and flags.
#pragma once

#define MPOL_DEFAULT    0
#define MPOL_PREFERRED  1
#define MPOL_BIND       2
#define MPOL_INTERLEAVE 3
#define MPOL_LOCAL      4
#define MPOL_PREFERRED_MANY 5
#define MPOL_MAX        6

// Mode flags, or'ed into set_mempolicy's mode (get_mempolicy gives them back).
#define MPOL_F_NUMA_BALANCING (1 << 13)
#define MPOL_F_RELATIVE_NODES (1 << 14)
#define MPOL_F_STATIC_NODES   (1 << 15)
#define MPOL_MODE_FLAGS (MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES | MPOL_F_NUMA_BALANCING)

#define MPOL_F_NODE         (1 << 0)   // the node (of addr, with MPOL_F_ADDR), not the mode
#define MPOL_F_ADDR         (1 << 1)   // the policy of the mapping at addr
#define MPOL_F_MEMS_ALLOWED (1 << 2)   // the nodes the caller may use
