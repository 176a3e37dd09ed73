! Streaming triad (the "triad" of the STREAM benchmark): a = b + s*c over n elements.
!
! What the analysis should find, per iteration (loop i):
!   flops: 1 add, 1 multiply
!   b, c: read-only at offset (0); a: write-only at offset (0)
! Nothing is reused, whatever the cache size: per iteration 8 B are read for b and for c and
! 16 B move for a (its cache line is read for ownership, then written back), 32 B in all.
! It is the memory-bandwidth-bound extreme among the examples.
subroutine triad(n, s, a, b, c)
  implicit none
  integer, intent(in) :: n
  double precision, intent(in) :: s
  double precision, intent(out) :: a(n)
  double precision, intent(in) :: b(n), c(n)
  integer :: i

  do i = 1, n
    a(i) = b(i) + s * c(i)
  end do
end subroutine triad
