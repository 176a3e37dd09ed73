/* 7-point Laplacian on a 3-D box: the C twin of examples/lap.f90.
 *
 * The same algorithm as the Fortran version, written the C way: arrays are indexed
 * a0[k][j][i] (row-major, i is the unit-stride index) and carry one ghost layer on each side,
 * so the interior runs from 1 to n in every direction.
 *
 * What the analysis should find, per innermost iteration (loop i):
 *   flops: 6 adds (5 to sum the six neighbours, 1 to add fac*centre), 2 multiplies
 *   a0: read-only, 7 accesses at (0,0,0) and (+-1,0,0), (0,+-1,0), (0,0,+-1) in [k][j][i] order
 *   anext: write-only, one access at (0,0,0)
 */
void laplacian(int nx, int ny, int nz, double fac, double fac2,
               const double a0[nz + 2][ny + 2][nx + 2],
               double anext[nz + 2][ny + 2][nx + 2])
{
    for (int k = 1; k <= nz; k++) {
        for (int j = 1; j <= ny; j++) {
            for (int i = 1; i <= nx; i++) {
                anext[k][j][i] = fac * a0[k][j][i]
                               + fac2 * (a0[k][j][i + 1] + a0[k][j][i - 1]
                                       + a0[k][j + 1][i] + a0[k][j - 1][i]
                                       + a0[k + 1][j][i] + a0[k - 1][j][i]);
            }
        }
    }
}
