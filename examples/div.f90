! Divergence of a vector field (x, y, z) on a 3-D box (the "div" micro benchmark of ExaSAT).
!
! What the analysis should find, per innermost iteration (loop i):
!   flops: 5 adds (3 central differences + 2 to sum them), 3 multiplies (alpha, beta, gamma)
!   x: read-only at (+-1,0,0); y: read-only at (0,+-1,0); z: read-only at (0,0,+-1)
!   u: write-only at (0,0,0)
! x needs no plane or pencil reuse, y needs 3 pencils, z needs 3 planes.
subroutine div(lo, hi, alpha, beta, gamma, x, y, z, u)
  implicit none
  integer, intent(in) :: lo(3), hi(3)
  double precision, intent(in) :: alpha, beta, gamma
  double precision, intent(in) :: x(lo(1)-1:hi(1)+1, lo(2)-1:hi(2)+1, lo(3)-1:hi(3)+1)
  double precision, intent(in) :: y(lo(1)-1:hi(1)+1, lo(2)-1:hi(2)+1, lo(3)-1:hi(3)+1)
  double precision, intent(in) :: z(lo(1)-1:hi(1)+1, lo(2)-1:hi(2)+1, lo(3)-1:hi(3)+1)
  double precision, intent(out) :: u(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3))
  integer :: i, j, k

  do k = lo(3), hi(3)
    do j = lo(2), hi(2)
      do i = lo(1), hi(1)
        u(i,j,k) = alpha * (x(i+1,j,k) - x(i-1,j,k)) &
                 + beta  * (y(i,j+1,k) - y(i,j-1,k)) &
                 + gamma * (z(i,j,k+1) - z(i,j,k-1))
      end do
    end do
  end do
end subroutine div
