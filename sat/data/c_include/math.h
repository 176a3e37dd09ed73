/* satreport stub of <math.h>: prototypes only, so that kernels parse on any machine.
   What each function costs in flops is decided by sat/frontend/intrinsics.py. */
#ifndef SATREPORT_MATH_H
#define SATREPORT_MATH_H
double sqrt(double x);
double cbrt(double x);
double exp(double x);
double exp2(double x);
double expm1(double x);
double log(double x);
double log10(double x);
double log2(double x);
double log1p(double x);
double logb(double x);
double sin(double x);
double cos(double x);
double tan(double x);
double asin(double x);
double acos(double x);
double atan(double x);
double sinh(double x);
double cosh(double x);
double tanh(double x);
double asinh(double x);
double acosh(double x);
double atanh(double x);
double erf(double x);
double erfc(double x);
double tgamma(double x);
double lgamma(double x);
double fabs(double x);
double ceil(double x);
double floor(double x);
double trunc(double x);
double round(double x);
double rint(double x);
double nearbyint(double x);
double pow(double x, double y);
double atan2(double x, double y);
double hypot(double x, double y);
double fmod(double x, double y);
double remainder(double x, double y);
double fmin(double x, double y);
double fmax(double x, double y);
double fdim(double x, double y);
double copysign(double x, double y);
double nextafter(double x, double y);
double fma(double x, double y, double z);
double ldexp(double x, int e);
double scalbn(double x, int e);
double frexp(double x, int *e);
double modf(double x, double *i);
long lround(double x);
long lrint(double x);
int ilogb(double x);
float sqrtf(float x);
float cbrtf(float x);
float expf(float x);
float exp2f(float x);
float expm1f(float x);
float logf(float x);
float log10f(float x);
float log2f(float x);
float log1pf(float x);
float logbf(float x);
float sinf(float x);
float cosf(float x);
float tanf(float x);
float asinf(float x);
float acosf(float x);
float atanf(float x);
float sinhf(float x);
float coshf(float x);
float tanhf(float x);
float asinhf(float x);
float acoshf(float x);
float atanhf(float x);
float erff(float x);
float erfcf(float x);
float tgammaf(float x);
float lgammaf(float x);
float fabsf(float x);
float ceilf(float x);
float floorf(float x);
float truncf(float x);
float roundf(float x);
float rintf(float x);
float nearbyintf(float x);
float powf(float x, float y);
float atan2f(float x, float y);
float hypotf(float x, float y);
float fmodf(float x, float y);
float remainderf(float x, float y);
float fminf(float x, float y);
float fmaxf(float x, float y);
float fdimf(float x, float y);
float copysignf(float x, float y);
float nextafterf(float x, float y);
float fmaf(float x, float y, float z);
float ldexpf(float x, int e);
float scalbnf(float x, int e);
float frexpf(float x, int *e);
float modff(float x, float *i);
long lroundf(float x);
long lrintf(float x);
int ilogbf(float x);
long double sqrtl(long double x);
long double cbrtl(long double x);
long double expl(long double x);
long double exp2l(long double x);
long double expm1l(long double x);
long double logl(long double x);
long double log10l(long double x);
long double log2l(long double x);
long double log1pl(long double x);
long double logbl(long double x);
long double sinl(long double x);
long double cosl(long double x);
long double tanl(long double x);
long double asinl(long double x);
long double acosl(long double x);
long double atanl(long double x);
long double sinhl(long double x);
long double coshl(long double x);
long double tanhl(long double x);
long double asinhl(long double x);
long double acoshl(long double x);
long double atanhl(long double x);
long double erfl(long double x);
long double erfcl(long double x);
long double tgammal(long double x);
long double lgammal(long double x);
long double fabsl(long double x);
long double ceill(long double x);
long double floorl(long double x);
long double truncl(long double x);
long double roundl(long double x);
long double rintl(long double x);
long double nearbyintl(long double x);
long double powl(long double x, long double y);
long double atan2l(long double x, long double y);
long double hypotl(long double x, long double y);
long double fmodl(long double x, long double y);
long double remainderl(long double x, long double y);
long double fminl(long double x, long double y);
long double fmaxl(long double x, long double y);
long double fdiml(long double x, long double y);
long double copysignl(long double x, long double y);
long double nextafterl(long double x, long double y);
long double fmal(long double x, long double y, long double z);
long double ldexpl(long double x, int e);
long double scalbnl(long double x, int e);
long double frexpl(long double x, int *e);
long double modfl(long double x, long double *i);
long lroundl(long double x);
long lrintl(long double x);
int ilogbl(long double x);
double satreport_huge_val(void);
double satreport_nan(void);
#define HUGE_VAL (satreport_huge_val())
#define INFINITY (satreport_huge_val())
#define NAN (satreport_nan())
#define M_E 2.7182818284590452354
#define M_LOG2E 1.4426950408889634074
#define M_LOG10E 0.43429448190325182765
#define M_LN2 0.69314718055994530942
#define M_LN10 2.30258509299404568402
#define M_PI 3.14159265358979323846
#define M_PI_2 1.57079632679489661923
#define M_PI_4 0.78539816339744830962
#define M_1_PI 0.31830988618379067154
#define M_2_PI 0.63661977236758134308
#define M_SQRT2 1.41421356237309504880
#define M_SQRT1_2 0.70710678118654752440
#endif
