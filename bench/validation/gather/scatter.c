/* The scatter of the irregular-access validation (bench/validation/gather.py): adds 1 to x
 * through the index array idx, a histogram's read-modify-write. satreport models this very
 * file; callgrind and cachegrind count the cache misses and write-backs. Indices are long
 * so that an index is one 8-byte word, as the model counts every element. */
void scatter(long n, const long *restrict idx, double *restrict x)
{
    for (long i = 0; i < n; i++)
        x[idx[i]] += 1.0;
}
