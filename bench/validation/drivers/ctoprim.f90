! Driver for examples/ctoprim.f90: ctoprim on lo = 1, hi = (n, n, n), ng = 4 ghost cells.
! Usage: ctoprim N SWEEPS FLUSH_BYTES
program ctoprim_driver
  use validation_common
  implicit none
  integer, parameter :: ng = 4
  integer :: n, sweeps, s, lo(3), hi(3)
  double precision, allocatable :: u(:,:,:,:), q(:,:,:,:)

  n = int_arg(1, 64)
  sweeps = int_arg(2, 1)
  call init_flush(int_arg(3, 8*1024*1024))
  lo = 1
  hi = n
  allocate (u(lo(1)-ng:hi(1)+ng, lo(2)-ng:hi(2)+ng, lo(3)-ng:hi(3)+ng, 5))
  allocate (q(lo(1)-ng:hi(1)+ng, lo(2)-ng:hi(2)+ng, lo(3)-ng:hi(3)+ng, 6))
  call fill(u, size(u), 1.0d0)
  call fill(q, size(q), 0.0d0)
  do s = 1, sweeps
    call flush_cache()
    call ctoprim(lo, hi, ng, 0.4d0, 717.0d0, u, q)
  end do
  call flush_cache()
  print *, q(1,1,1,1) + sink
end program ctoprim_driver
