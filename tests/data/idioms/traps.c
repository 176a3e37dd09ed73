/* Hand-labelled loops for idiom recognition (tests/test_idioms.py). The comment on each loop
 * lists every idiom it has, as idiom:array; nothing else may be found there.
 */
int pick(int i)
{
    if (i < 0) return 0; return i;  /* two statements: no index function to inline */
}

void traps(int n, int nnz, double *a, double b[][64], double c[][64], double *x, double *y,
           double *s, const int *idx, const int *col, const int *row, const double *v,
           const int *p)
{
    double sum = 0.0, m = 0.0, t;
    int cnt = 0;
    for (int i = 0; i < n; i++)   /* stream:a stream:b -- a[idx[1]]: no gather */
        a[i] = a[idx[1]] + b[1][2 * i];
    for (int i = 0; i < n; i++)   /* reduction:sum stream:a */
        sum += a[i];
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)   /* reduction:y stream:c stream:x */
            y[j] += c[j][i] * x[i];
    for (int k = 0; k < nnz; k++)   /* scatter:y gather:x stream:row stream:col stream:v */
        y[row[k]] = v[k] * x[col[k]];
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)   /* transpose:b transpose:c */
            b[i][j] = c[j][i];
    for (int i = 1; i < n - 1; i++)   /* stencil:a stream:x */
        x[i] = a[i - 1] + a[i] + a[i + 1];
    for (int i = 0; i < n; i++)   /* irregular:a stream:x -- a function result, a pointer */
        x[i] = a[pick(i)] + a[*p];
    for (int i = 0; i < n; i++) {   /* stream:a stream:b -- a counter is no reduction */
        cnt++;
        b[i][0] = a[i];
    }
    for (int k = 0; k < nnz; k++) {   /* gather:x reduction:sum stream:col stream:v */
        int jj = col[k];
        t = v[k] * x[jj];
        sum += t;
    }
    for (int i = 0; i < n; i++)   /* reduction:m stream:a -- a maximum */
        if (a[i] > m)
            m = a[i];
    s[0] = sum + m + cnt;
}
