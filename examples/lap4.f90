! Wide star Laplacian on a 3-D box (the "lap4" micro benchmark of ExaSAT): the centre plus
! four neighbours on each side in each direction, 25 points, all with the same weight.
!
! What the analysis should find, per innermost iteration (loop i):
!   flops: 24 adds (23 to sum the 24 neighbours, 1 to add fac*centre),
!          2 multiplies (fac*centre, fac*sum), 1 divide (by 12)
!   A0: read-only, 25 accesses: (0,0,0) and offsets -4..-1, 1..4 along each axis
!   Anext: write-only at (0,0,0)
! A0's stencil spans 9 planes in k: reuse needs 9 planes in cache.
subroutine laplacian4(lo, hi, fac, A0, Anext)
  implicit none
  integer, intent(in) :: lo(3), hi(3)
  double precision, intent(in) :: fac
  double precision, intent(in) :: A0(lo(1)-4:hi(1)+4, lo(2)-4:hi(2)+4, lo(3)-4:hi(3)+4)
  double precision, intent(out) :: Anext(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3))
  integer :: i, j, k

  do k = lo(3), hi(3)
    do j = lo(2), hi(2)
      do i = lo(1), hi(1)
        Anext(i,j,k) = (fac * A0(i,j,k) &
                     + fac * (A0(i+1,j,k) + A0(i+2,j,k) + A0(i+3,j,k) + A0(i+4,j,k) &
                            + A0(i-1,j,k) + A0(i-2,j,k) + A0(i-3,j,k) + A0(i-4,j,k) &
                            + A0(i,j+1,k) + A0(i,j+2,k) + A0(i,j+3,k) + A0(i,j+4,k) &
                            + A0(i,j-1,k) + A0(i,j-2,k) + A0(i,j-3,k) + A0(i,j-4,k) &
                            + A0(i,j,k+1) + A0(i,j,k+2) + A0(i,j,k+3) + A0(i,j,k+4) &
                            + A0(i,j,k-1) + A0(i,j,k-2) + A0(i,j,k-3) + A0(i,j,k-4))) / 12.0d0
      end do
    end do
  end do
end subroutine laplacian4
