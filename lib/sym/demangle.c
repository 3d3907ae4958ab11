// SPDX-License-Identifier: LGPL-2.1-only
/* C++ names for people (lib/sym/symtab.h: kt_demangle). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sym/symtab.h"

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);
static demangle_fn cxa_demangle;
static pthread_once_t demangle_once = PTHREAD_ONCE_INIT;

/*
 * The C++ runtime's demangler. The ktrace binary links it in (static, so
 * it never dlopen()s a second libc); libktrace users need not link
 * libstdc++ (nor pay for loading it at every start): C++ programs have it
 * already, others get it from libstdc++.so.6 when installed. Without it,
 * C++ names stay mangled.
 */
extern char *__cxa_demangle(const char *, char *, size_t *, int *)
	__attribute__((weak));

static void demangle_init(void)
{
	void *sym;

	if (__cxa_demangle) {
		cxa_demangle = __cxa_demangle;
		return;
	}
	sym = dlsym(RTLD_DEFAULT, "__cxa_demangle");
	if (!sym) {
		void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);

		if (h)
			sym = dlsym(h, "__cxa_demangle");
	}
	cxa_demangle = (demangle_fn)sym;
}

char *kt_demangle(const char *name)
{
	int status = 0;
	char *out;

	if (strncmp(name, "_Z", 2))
		return NULL;
	pthread_once(&demangle_once, demangle_init);
	if (!cxa_demangle)
		return NULL;
	out = cxa_demangle(name, NULL, NULL, &status);
	if (status) {
		free(out);
		return NULL;
	}
	return out;
}
