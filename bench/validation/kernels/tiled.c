double a[N][N];
double b[N][N];

for (int step = 0; step < NT; step++) {
    for (int jt = 0; jt < N; jt += S)
        for (int it = 0; it < N; it += S)
            for (int j = jt; j < jt + S; j++)
                for (int i = it; i < it + S; i++)
                    b[j][i] = b[j][i] + a[j][i];
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++)
            a[j][i] = a[j][i] + 1.0;
}
