/* Dense matrix-vector product y = A x with A stored row by row in one block of m*n doubles
 * (the usual linearised indexing a[i*n + j]).
 *
 * The analysis splits a[i*n + j] into a[i][j] with an inner extent of n. Per inner
 * iteration: 1 multiply and 1 add; per outer iteration: no flops, y[i] written once.
 */
void matvec(int m, int n, const double *restrict a, const double *restrict x,
            double *restrict y)
{
    for (int i = 0; i < m; i++) {
        double sum = 0.0;
        for (int j = 0; j < n; j++)
            sum += a[i * n + j] * x[j];
        y[i] = sum;
    }
}
