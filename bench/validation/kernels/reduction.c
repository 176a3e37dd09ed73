double tot[N][N];
double x[N][N][N];

for (int k = 0; k < N; k++)
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++)
            tot[k][j] = tot[k][j] + x[k][j][i];
