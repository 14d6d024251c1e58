/* mode=pmucheck and the brief pmucheck run after the boot self-check
 * (docs/pmucheck.md): the kernel's environment for arch/x86/pmu/pmucheck-suite.c. */
#ifndef KERNEL_PMUCHECK_H
#define KERNEL_PMUCHECK_H

/* mode=pmucheck: detect, print @meta, run every check. The exit status: fail when a
 * check failed, else ok (checks that SKIP, as all do without a working PMU, do not fail). */
int pmucheck_main(void);
/* The cheap subset, run by mode=run and mode=c2c after @meta; prints nothing unless the
 * boot self-check found the PMU functional. */
void pmucheck_brief(void);

#endif
