// The path walk's state and entry points, for the VFS calls outside fs/namei.c that walk a
// path to its parent and then change that directory (fs/rename.c).
#pragma once
#include "fs.h"

struct nameidata {
  const char *path;       // what is left to walk
  struct dentry *dentry;  // where the walk is
  struct inode *inode;    // RCU-walk: dentry's inode, as read under seq
  u32 seq;                // RCU-walk: dentry->d_seq when the walk reached it
  u32 rename_seq;         // RCU-walk: rename_lock when the walk began
  struct qstr last;       // a parent walk: the final name, not looked up
  bool must_dir;          // the path ends in a slash
  bool follow;            // a symbolic link as the last name is followed
  int links;              // ref-walk: symbolic links followed so far
  char *buf;              // ref-walk: a followed link's target and the rest of the path
};

// Walks path from dir (NULL, or an absolute path: the root) by flags (LOOKUP_*); parent
// stops at the last name, left in nd->last. 0 with nd->dentry referenced; walk_done() frees
// what the walk kept once nd->last is no longer needed.
int walk(struct dentry *dir, const char *path, unsigned flags, bool parent, struct nameidata *nd);
void walk_done(struct nameidata *nd);
