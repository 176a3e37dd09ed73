! Explicit heat equation step with a preprocessor switch (a .F90 file: run through cpp first).
! Without HEAT_3D the diffusion is along x only (3-point stencil); with -DHEAT_3D it is the
! 7-point Laplacian.
!
! What the analysis should find:
!   procedure level: 1 divide, 1 multiply (dxinv2 = 1/(dx*dx))
!   innermost loop without HEAT_3D: 3 adds, 3 multiplies; phi_old read at (-1,0,0), (1,0,0)
!     and (0,0,0) (twice); phi_new write-only at (0,0,0)
!   innermost loop with HEAT_3D: 7 adds, 3 multiplies; phi_old read at the 7 points of the
!     3-D star, the centre twice
subroutine heat(lo, hi, dt, dx, phi_old, phi_new)
  implicit none
  integer, intent(in) :: lo(3), hi(3)
  double precision, intent(in) :: dt, dx
  double precision, intent(in) :: phi_old(lo(1)-1:hi(1)+1, lo(2)-1:hi(2)+1, lo(3)-1:hi(3)+1)
  double precision, intent(out) :: phi_new(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3))
  integer :: i, j, k
  double precision :: dxinv2, lap

  dxinv2 = 1.0d0 / (dx*dx)
  do k = lo(3), hi(3)
    do j = lo(2), hi(2)
      do i = lo(1), hi(1)
#ifdef HEAT_3D
        ! 5 adds and 1 subtraction, 2 multiplies
        lap = (phi_old(i+1,j,k) + phi_old(i-1,j,k) + phi_old(i,j+1,k) + phi_old(i,j-1,k) &
             + phi_old(i,j,k+1) + phi_old(i,j,k-1) - 6.0d0*phi_old(i,j,k)) * dxinv2
#else
        ! 1 add and 1 subtraction, 2 multiplies
        lap = (phi_old(i+1,j,k) + phi_old(i-1,j,k) - 2.0d0*phi_old(i,j,k)) * dxinv2
#endif
        phi_new(i,j,k) = phi_old(i,j,k) + dt*lap      ! 1 add, 1 multiply
      end do
    end do
  end do
end subroutine heat
