/* Schoenauer vector triad: a = b + c * d over n elements.
 *
 * Per iteration: 1 add, 1 multiply; b, c, d read at offset 0, a written at offset 0.
 */
#include <stddef.h>

void schoenauer_triad(int n, double *restrict a, const double *restrict b,
                      const double *restrict c, const double *restrict d)
{
    for (int i = 0; i < n; i++)
        a[i] = b[i] + c[i] * d[i];
}
