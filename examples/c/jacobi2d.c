/* 2-D 5-point Jacobi sweep, written as a kernel fragment (statements at file scope, the
 * form Kerncraft reads). M and N are the problem sizes: give them with -D or as parameters.
 *
 * Per innermost iteration: 3 adds and 1 multiply; a is read at (0,-1), (0,+1), (-1,0),
 * (+1,0) in [j][i] order, b written at (0,0).
 */
double a[M][N];
double b[M][N];
double s;

for (int j = 1; j < M - 1; ++j)
    for (int i = 1; i < N - 1; ++i)
        b[j][i] = (a[j][i - 1] + a[j][i + 1] + a[j - 1][i] + a[j + 1][i]) * s;
