! Histogram: h(b) counts the elements whose bin, idx(i), is b.
!
! What the analysis should find, per iteration (loop i):
!   flops: 1 add (h is real, the count is added in floating point)
!   idx: read-only at offset (0); h: read and written through the index array idx
! Idioms (the Idioms sheet): stream on idx, gather and scatter on h (the same element of h is
! read and written back through idx(i): a read-modify-write that no built-in idiom names).
! With --idioms examples/idioms/sparse.yaml, histogram on h instead of gather and scatter.
subroutine histogram(n, nbins, idx, h)
  implicit none
  integer, intent(in) :: n, nbins
  integer, intent(in) :: idx(n)
  double precision, intent(inout) :: h(nbins)
  integer :: i

  do i = 1, n
    h(idx(i)) = h(idx(i)) + 1
  end do
end subroutine histogram
