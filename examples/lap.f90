! 7-point Laplacian on a 3-D box (the "lap" micro benchmark of ExaSAT).
!
! What the analysis should find, per innermost iteration (loop i):
!   flops: 6 adds (5 to sum the six neighbours, 1 to add fac*centre), 2 multiplies, no divides
!   A0: read-only, 7 accesses at offsets (0,0,0) and (+-1,0,0), (0,+-1,0), (0,0,+-1)
!   Anext: write-only, one access at (0,0,0)
! so its stencil spans 3 planes in k and 3 pencils in j: reuse needs 3 planes of A0 in cache.
subroutine laplacian(lo, hi, fac, fac2, A0, Anext)
  implicit none
  integer, intent(in) :: lo(3), hi(3)
  double precision, intent(in) :: fac, fac2
  double precision, intent(in) :: A0(lo(1)-1:hi(1)+1, lo(2)-1:hi(2)+1, lo(3)-1:hi(3)+1)
  double precision, intent(out) :: Anext(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3))
  integer :: i, j, k

  do k = lo(3), hi(3)
    do j = lo(2), hi(2)
      do i = lo(1), hi(1)
        Anext(i,j,k) = fac * A0(i,j,k) &
                     + fac2 * (A0(i+1,j,k) + A0(i-1,j,k) &
                             + A0(i,j+1,k) + A0(i,j-1,k) &
                             + A0(i,j,k+1) + A0(i,j,k-1))
      end do
    end do
  end do
end subroutine laplacian
