! Driver for examples/lap4.f90: laplacian4 on lo = 1, hi = (n, n, n), ghost depth 4.
! Usage: lap4 N SWEEPS FLUSH_BYTES
program lap4_driver
  use validation_common
  implicit none
  integer :: n, sweeps, s, lo(3), hi(3)
  double precision, allocatable :: a0(:,:,:), anext(:,:,:)

  n = int_arg(1, 64)
  sweeps = int_arg(2, 1)
  call init_flush(int_arg(3, 8*1024*1024))
  lo = 1
  hi = n
  allocate (a0(lo(1)-4:hi(1)+4, lo(2)-4:hi(2)+4, lo(3)-4:hi(3)+4))
  allocate (anext(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3)))
  call fill(a0, size(a0), 1.0d0)
  call fill(anext, size(anext), 0.0d0)
  do s = 1, sweeps
    call flush_cache()
    call laplacian4(lo, hi, 0.5d0, a0, anext)
  end do
  call flush_cache()
  print *, anext(1,1,1) + sink
end program lap4_driver
