/* Small language helpers for every part of the tree, kernel and host alike. */
#ifndef LIB_UTIL_H
#define LIB_UTIL_H

/* Elements in an array. Handed a pointer instead, it does not compile (a bit-field of
 * negative width), rather than quietly returning sizeof(pointer) / sizeof(element). */
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]) + ARRAY_SIZE_MUST_BE_ARRAY(a))
#define ARRAY_SIZE_MUST_BE_ARRAY(a) \
	(0 * sizeof(struct { int : -__builtin_types_compatible_p(__typeof__(a), __typeof__(&(a)[0])); }))

#endif
