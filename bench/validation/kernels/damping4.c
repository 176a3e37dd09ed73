double up[N][N][N];
double u[N][N][N];
double rho[N][N][N];
double strx[N];
double stry[N];
double strz[N];
double dcx[N];
double dcy[N];
double dcz[N];
double beta;

for (int k = 2; k < N - 2; k++)
    for (int j = 2; j < N - 2; j++)
        for (int i = 2; i < N - 2; i++)
            up[k][j][i] = up[k][j][i] - beta / rho[k][j][i] * (
                strx[i] * dcx[i] * (u[k][j][i-2] - 4.0 * u[k][j][i-1] + 6.0 * u[k][j][i]
                                    - 4.0 * u[k][j][i+1] + u[k][j][i+2])
              + stry[j] * dcy[j] * (u[k][j-2][i] - 4.0 * u[k][j-1][i] + 6.0 * u[k][j][i]
                                    - 4.0 * u[k][j+1][i] + u[k][j+2][i])
              + strz[k] * dcz[k] * (u[k-2][j][i] - 4.0 * u[k-1][j][i] + 6.0 * u[k][j][i]
                                    - 4.0 * u[k+1][j][i] + u[k+2][j][i]));
