// epoll's hook in the life of an open file description (fs/eventpoll.c): its last reference
// takes it out of every epoll set that watches it, as Linux's eventpoll_release.
#pragma once

struct ufile;
void eventpoll_release(struct ufile *uf);
