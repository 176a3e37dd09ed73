/* The gather of the irregular-access validation (bench/validation/gather.py): a sum over x
 * read through the index array idx. satreport models this very file; cachegrind counts the
 * cache misses on its lines. Indices are long so that an index is one 8-byte word, as the
 * model counts every element. */
double gather(long n, const long *restrict idx, const double *restrict x)
{
    double s = 0.0;
    for (long i = 0; i < n; i++)
        s += x[idx[i]];
    return s;
}
