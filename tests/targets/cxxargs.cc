// SPDX-License-Identifier: GPL-2.0-only
/*
 * Target for C++ arguments by name. Usage: cxxargs [N]
 * geo::Scaler::scale() takes a struct by reference (p.x follows it) and a
 * scalar by reference (calls), and its first instruction is that of
 * note(), inlined: its entry lies inside an inlined callee, whose own
 * parameter has another name. Prints the sum of N calls and the count.
 */
#include <cstdio>
#include <cstdlib>

volatile int seen;

namespace geo {

struct Point {
	int x;
	int y;
};

/* a volatile store, then nothing moves above it: scale()'s first
 * instruction */
static inline __attribute__((always_inline)) void note(int what)
{
	seen = what;
	asm volatile("" ::: "memory");
}

class Scaler {
public:
	int bias;
	__attribute__((noipa)) long scale(const Point &p, int factor,
					  long &calls);
};

long Scaler::scale(const Point &p, int factor, long &calls)
{
	note(factor);
	calls++;
	return (long)(p.x + p.y) * factor + bias;
}

} // namespace geo

int main(int argc, char **argv)
{
	static const geo::Point pts[] = { { 1, 2 }, { 30, 40 }, { -5, 7 } };
	geo::Scaler s = { 100 };
	long n = argc > 1 ? atol(argv[1]) : 3, sum = 0, calls = 0;

	for (long i = 0; i < n; i++)
		sum += s.scale(pts[i % 3], (int)i + 1, calls);
	printf("sum=%ld calls=%ld\n", sum, calls);
	return 0;
}
