! Driver for examples/grad.f90: grad on lo = 1, hi = (n, n, n).
! Usage: grad N SWEEPS FLUSH_BYTES
program grad_driver
  use validation_common
  implicit none
  integer :: n, sweeps, s, lo(3), hi(3)
  double precision, allocatable, dimension(:,:,:) :: u, x, y, z

  n = int_arg(1, 64)
  sweeps = int_arg(2, 1)
  call init_flush(int_arg(3, 8*1024*1024))
  lo = 1
  hi = n
  allocate (u(lo(1)-1:hi(1)+1, lo(2)-1:hi(2)+1, lo(3)-1:hi(3)+1))
  allocate (x(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3)))
  allocate (y(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3)))
  allocate (z(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3)))
  call fill(u, size(u), 1.0d0)
  call fill(x, size(x), 0.0d0)
  call fill(y, size(y), 0.0d0)
  call fill(z, size(z), 0.0d0)
  do s = 1, sweeps
    call flush_cache()
    call grad(lo, hi, 0.5d0, 0.25d0, 0.125d0, u, x, y, z)
  end do
  call flush_cache()
  print *, x(1,1,1) + y(1,1,1) + z(1,1,1) + sink
end program grad_driver
