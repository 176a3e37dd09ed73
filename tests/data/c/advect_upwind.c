/* First-order upwind (donor-cell) advection along x of a cell-centred field on a 2-D
 * grid with two ghost cells on every side, indexed the way C ports of Fortran
 * hydrodynamics codes index their arrays: one flat array per field and a macro that
 * turns (j, k) into an offset from the first ghost cell. The row length x_max + 5 is
 * symbolic, so the index is split into dimensions on the assumption that it is the
 * extent of the inner dimension.
 *
 * Nest 1 computes the mass flux through each x face from the cell upstream of it: the
 * donor cell is chosen per face from the sign of the volume flux. Nest 2 updates the
 * density from the fluxes through the two faces of each cell.
 */
#define ROW_LENGTH (x_max + 5)
#define IDX(j, k) (ROW_LENGTH * ((k) - (y_min - 2)) + (j) - (x_min - 2))

void advect_x(int x_min, int x_max, int y_min, int y_max,
              const double *restrict vol_flux, const double *restrict density,
              const double *restrict volume, double *restrict mass_flux,
              double *restrict density_new)
{
    for (int k = y_min; k <= y_max; k++) {
        for (int j = x_min; j <= x_max + 1; j++) {
            int donor = (vol_flux[IDX(j, k)] > 0.0) ? j - 1 : j;
            mass_flux[IDX(j, k)] = vol_flux[IDX(j, k)] * density[IDX(donor, k)];
        }
    }

    for (int k = y_min; k <= y_max; k++) {
        for (int j = x_min; j <= x_max; j++) {
            density_new[IDX(j, k)] = (density[IDX(j, k)] * volume[IDX(j, k)]
                                      + mass_flux[IDX(j, k)] - mass_flux[IDX(j + 1, k)])
                                     / volume[IDX(j, k)];
        }
    }
}
