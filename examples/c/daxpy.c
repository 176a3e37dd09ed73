/* DAXPY: y = alpha * x + y (BLAS level 1).
 *
 * Per iteration: 1 multiply and 1 add (the += is a read, an add and a write of y[i]);
 * x read at offset 0, y read then written at offset 0.
 */
void daxpy(int n, double alpha, const double *restrict x, double *restrict y)
{
    #pragma omp parallel for
    for (int i = 0; i < n; i++)
        y[i] += alpha * x[i];
}
