/* Sparse matrix-vector product y = A x, A in compressed sparse row (CSR) form: the nonzeros
 * of row i are a[rowptr[i]] .. a[rowptr[i+1]-1], in the columns col[rowptr[i]] ..
 *
 * Per inner iteration (loop k, over a row): 1 multiply and 1 add; a and col read at offset 0
 * on k, x read through the index array col, sum read then written. Per outer iteration
 * (loop i): sum set to 0, y[i] written once.
 * Idioms (the Idioms sheet): in loop k, stream on a and col, gather on x (x[col[k]]) and
 * reduction on sum (carried from one k to the next, fed by a and x); in loop i, stream on y
 * and stencil on rowptr (rowptr[i] and rowptr[i+1]).
 */
void spmv(int n, const int *restrict rowptr, const int *restrict col,
          const double *restrict a, const double *restrict x, double *restrict y)
{
    for (int i = 0; i < n; i++) {
        double sum = 0.0;
        for (int k = rowptr[i]; k < rowptr[i + 1]; k++)
            sum += a[k] * x[col[k]];
        y[i] = sum;
    }
}
