/* fastx_isa.c - pick the fast decoder's instruction set at run time (host only).
 *
 * Machines here differ (Intel Xeon with AVX-512, AMD EPYC with AVX2): the
 * level is detected with __builtin_cpu_supports, never assumed, and every
 * SIMD function carries its own target attribute, so no global -mavx flag is
 * needed and the binary runs anywhere. pext (BMI2) is used only where it is
 * fast: AMD implements it in microcode before Zen 3 (family 0x19), where the
 * portable mask-and-shift gather is faster. Tests force each level with
 * fastx_isa_set(); TOE_FASTX_ISA / TOE_FASTX_PEXT override the automatic choice.
 */
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "fastx_int.h"

static int isa_level = -1; /* -1: not chosen yet */
static int pext_on;
int fastx_sel = -1;         /* fastx_int.h: isa_level * 2 + pext_on, -1 before the choice */

static void sel_update(void)
{
	fastx_sel = isa_level * 2 + pext_on;
}

int fastx_isa_max(void)
{
#if defined(__x86_64__)
	__builtin_cpu_init();
	/* the SIMD copies also use tzcnt (BMI1), which every AVX2 CPU has */
	if (!__builtin_cpu_supports("bmi"))
		return FASTX_ISA_SCALAR;
	/* the vector path (fastx_vec.c): vpcompressb/vpexpandb (VBMI2), vpermb
	 * and vpermt2b (VBMI), vpshufbitqmb (BITALG), pdep (BMI2), all with VL */
	if (__builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512f") &&
	    __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vbmi") &&
	    __builtin_cpu_supports("avx512vbmi2") && __builtin_cpu_supports("avx512bitalg") &&
	    __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt"))
		return FASTX_ISA_VBMI;
	if (__builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512f"))
		return FASTX_ISA_AVX512;
	if (__builtin_cpu_supports("avx2"))
		return FASTX_ISA_AVX2;
#endif
	return FASTX_ISA_SCALAR;
}

static int has_bmi2(void)
{
#if defined(__x86_64__)
	__builtin_cpu_init();
	return __builtin_cpu_supports("bmi2");
#else
	return 0;
#endif
}

int fastx_pext_fast(void)
{
#if defined(__x86_64__)
	unsigned a, b, c, d, family;
	char vendor[13];
	if (!has_bmi2() || !__get_cpuid(0, &a, &b, &c, &d))
		return 0;
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = 0;
	if (strcmp(vendor, "AuthenticAMD") && strcmp(vendor, "HygonGenuine"))
		return 1;
	if (!__get_cpuid(1, &a, &b, &c, &d))
		return 0;
	family = (a >> 8) & 0xf;
	if (family == 0xf)
		family += (a >> 20) & 0xff;
	return family >= 0x19; /* Zen 3 and later: pext in hardware */
#else
	return 0;
#endif
}

/* The automatic choice skips the AVX-512 copy: it differs from AVX2 only
 * in finding stop bits with one 64-byte compare instead of two 32-byte
 * movemasks, and measured slower on the development Xeon (bench_fastx raw,
 * CPU 1: 99.6 against 89.7 ns/record; zmm use costs a frequency licence and
 * a warm-up for a saving of two instructions per window). The VBMI level
 * (fastx_vec.c) is another design, a whole record per pass in vector
 * registers, and measured faster than AVX2 where the CPU has it
 * (bench_fastx, Xeon with AVX-512 VBMI2, CPU 1: raw 57 against 68
 * ns/record, STEP 66 against 80), so it is the default there.
 * TOE_FASTX_ISA names a level; tests run every level through fastx_isa_set. */
static void choose(void)
{
	const char *e = getenv("TOE_FASTX_ISA");
	int max = fastx_isa_max();
	int lvl = max == FASTX_ISA_AVX512 ? FASTX_ISA_AVX2 : max;
	if (e && !strcmp(e, "scalar"))
		lvl = FASTX_ISA_SCALAR;
	else if (e && !strcmp(e, "avx2") && max >= FASTX_ISA_AVX2)
		lvl = FASTX_ISA_AVX2;
	else if (e && !strcmp(e, "avx512") && max >= FASTX_ISA_AVX512)
		lvl = FASTX_ISA_AVX512;
	else if (e && !strcmp(e, "avx512vbmi") && max >= FASTX_ISA_VBMI)
		lvl = FASTX_ISA_VBMI;
	isa_level = lvl;
	e = getenv("TOE_FASTX_PEXT");
	pext_on = lvl > FASTX_ISA_SCALAR && fastx_pext_fast() && !(e && !strcmp(e, "0"));
	sel_update();
}

int fastx_sel_init(void)
{
	if (isa_level < 0)
		choose();
	return fastx_sel;
}

int fastx_isa_get(void)
{
	if (isa_level < 0)
		choose();
	return isa_level;
}

int fastx_isa_set(int level)
{
	if (level < 0 || level > fastx_isa_max())
		return -1;
	if (isa_level < 0)
		choose();
	isa_level = level;
	if (level == FASTX_ISA_SCALAR)
		pext_on = 0;
	sel_update();
	return 0;
}

int fastx_pext_get(void)
{
	if (isa_level < 0)
		choose();
	return pext_on;
}

int fastx_pext_set(int on)
{
	if (isa_level < 0)
		choose();
	if (on && (!has_bmi2() || isa_level == FASTX_ISA_SCALAR))
		return -1;
	pext_on = on ? 1 : 0;
	sel_update();
	return 0;
}

const char *fastx_isa_name(int level)
{
	switch (level) {
	case FASTX_ISA_SCALAR: return "scalar";
	case FASTX_ISA_AVX2: return "avx2";
	case FASTX_ISA_AVX512: return "avx512";
	case FASTX_ISA_VBMI: return "avx512vbmi";
	default: return "?";
	}
}
