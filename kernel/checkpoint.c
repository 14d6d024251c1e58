/* The modes' checkpoint (kernel/checkpoint.h). */
#include "kernel/checkpoint.h"

static void (*subscribers[CHECKPOINT_SUBSCRIBERS])(void);
static unsigned nsubscribers;

int checkpoint_subscribe(void (*fn)(void))
{
	if (nsubscribers == CHECKPOINT_SUBSCRIBERS)
		return -1;
	subscribers[nsubscribers++] = fn;
	return 0;
}

void checkpoint(void)
{
	for (unsigned i = 0; i < nsubscribers; i++)
		subscribers[i]();
}
