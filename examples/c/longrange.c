/* 3-D 25-point long-range stencil (8th order in space: four neighbours on each side along
 * every axis) updating a wave field, as a kernel fragment. M is the outer extent, N the two
 * inner ones.
 *
 * Per innermost iteration: the Laplacian takes 12 pair sums, 12 adds to join the 13 terms
 * and 13 multiplies; the update 2 adds and 2 multiplies: 26 adds and 15 multiplies in all.
 * v is read at 25 points (centre and +-1..4 along each axis), u read and written at the
 * centre, roc read at the centre.
 */
#include <math.h>

double u[M][N][N], v[M][N][N], roc[M][N][N];
double c0, c1, c2, c3, c4, lap;

#pragma omp parallel for
for (int k = 4; k < M - 4; k++) {
    for (int j = 4; j < N - 4; j++) {
        for (int i = 4; i < N - 4; i++) {
            lap = c0 * v[k][j][i]
                + c1 * (v[k][j][i + 1] + v[k][j][i - 1])
                + c1 * (v[k][j + 1][i] + v[k][j - 1][i])
                + c1 * (v[k + 1][j][i] + v[k - 1][j][i])
                + c2 * (v[k][j][i + 2] + v[k][j][i - 2])
                + c2 * (v[k][j + 2][i] + v[k][j - 2][i])
                + c2 * (v[k + 2][j][i] + v[k - 2][j][i])
                + c3 * (v[k][j][i + 3] + v[k][j][i - 3])
                + c3 * (v[k][j + 3][i] + v[k][j - 3][i])
                + c3 * (v[k + 3][j][i] + v[k - 3][j][i])
                + c4 * (v[k][j][i + 4] + v[k][j][i - 4])
                + c4 * (v[k][j + 4][i] + v[k][j - 4][i])
                + c4 * (v[k + 4][j][i] + v[k - 4][j][i]);
            u[k][j][i] = 2.0 * v[k][j][i] - u[k][j][i] + roc[k][j][i] * lap;
        }
    }
}
