/* Dot product with Kahan compensated summation.
 *
 * Per iteration: y = a*b - c (1 multiply, 1 add), t = sum + y (1 add),
 * c = (t - sum) - y (2 adds): 4 adds and 1 multiply; a and b read at offset 0.
 */
double kahan_dot(int n, const double *restrict a, const double *restrict b)
{
    double sum = 0.0, c = 0.0;
    for (int i = 0; i < n; ++i) {
        double y = a[i] * b[i] - c;
        double t = sum + y;
        c = (t - sum) - y;
        sum = t;
    }
    return sum;
}
