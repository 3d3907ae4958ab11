// SPDX-License-Identifier: GPL-2.0-only
/*
 * C++ frames for stack tests: an overloaded method (two demangled names
 * that differ only in their parameters) and a function inlined into one
 * of them. main -> Widget::poke(double) -> Widget::poke(int) ->
 * [inlined] ask_parent() -> syscall(getppid), N times.
 */
#include <cstdlib>
#include <sys/syscall.h>
#include <unistd.h>

volatile long sink;

namespace ns {
static inline __attribute__((always_inline)) void ask_parent()
{
	sink += syscall(SYS_getppid);
	sink++;
}

struct Widget {
	__attribute__((noipa)) void poke(int n);
	__attribute__((noipa)) void poke(double d);
};

void Widget::poke(int n)
{
	ask_parent();
	sink += n;
}

void Widget::poke(double d)
{
	poke((int)d);
	sink++;
}
} // namespace ns

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	ns::Widget w;

	for (int i = 0; i < n; i++)
		w.poke(1.0);
	return 0;
}
