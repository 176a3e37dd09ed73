! Gradient of a scalar field u on a 3-D box (the "grad" micro benchmark of ExaSAT).
!
! What the analysis should find, per innermost iteration (loop i):
!   flops: 3 adds (one central difference per direction), 3 multiplies (alpha, beta, gamma)
!   u: read-only, 6 accesses at (+-1,0,0), (0,+-1,0), (0,0,+-1) (the centre is not read)
!   x, y, z: write-only, one access each at (0,0,0)
subroutine grad(lo, hi, alpha, beta, gamma, u, x, y, z)
  implicit none
  integer, intent(in) :: lo(3), hi(3)
  double precision, intent(in) :: alpha, beta, gamma
  double precision, intent(in) :: u(lo(1)-1:hi(1)+1, lo(2)-1:hi(2)+1, lo(3)-1:hi(3)+1)
  double precision, intent(out) :: x(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3))
  double precision, intent(out) :: y(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3))
  double precision, intent(out) :: z(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3))
  integer :: i, j, k

  do k = lo(3), hi(3)
    do j = lo(2), hi(2)
      do i = lo(1), hi(1)
        x(i,j,k) = alpha * (u(i+1,j,k) - u(i-1,j,k))
        y(i,j,k) = beta  * (u(i,j+1,k) - u(i,j-1,k))
        z(i,j,k) = gamma * (u(i,j,k+1) - u(i,j,k-1))
      end do
    end do
  end do
end subroutine grad
