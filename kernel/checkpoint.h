/* A checkpoint the modes reach after each unit of work (a payload measured, a c2c pair
 * done), for whatever must follow the run as it goes: the results area saves what the
 * console has printed so far (kernel/storage.c). The modes know nothing of who listens. */
#ifndef KERNEL_CHECKPOINT_H
#define KERNEL_CHECKPOINT_H

#define CHECKPOINT_SUBSCRIBERS 4

/* fn runs at every checkpoint, in the order subscribed. 0, or -1 past CHECKPOINT_SUBSCRIBERS. */
int checkpoint_subscribe(void (*fn)(void));
void checkpoint(void);

#endif
