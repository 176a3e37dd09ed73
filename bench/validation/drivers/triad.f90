! Driver for examples/triad.f90: triad over n**3 elements (the same cell count as the 3-D
! kernels on an n**3 box).
! Usage: triad N SWEEPS FLUSH_BYTES
program triad_driver
  use validation_common
  implicit none
  integer :: n, m, sweeps, s
  double precision, allocatable :: a(:), b(:), c(:)

  n = int_arg(1, 64)
  sweeps = int_arg(2, 1)
  call init_flush(int_arg(3, 8*1024*1024))
  m = n**3
  allocate (a(m), b(m), c(m))
  call fill(b, m, 1.0d0)
  call fill(c, m, 2.0d0)
  call fill(a, m, 0.0d0)
  do s = 1, sweeps
    call flush_cache()
    call triad(m, 3.0d0, a, b, c)
  end do
  call flush_cache()
  print *, a(1) + sink
end program triad_driver
