! Driver for examples/hypterm.f90: hypterm on lo = 1, hi = (n, n, n), ng = 4 ghost cells.
! Usage: hypterm N SWEEPS FLUSH_BYTES
program hypterm_driver
  use validation_common
  implicit none
  integer, parameter :: ng = 4
  integer :: n, sweeps, s, lo(3), hi(3)
  double precision :: dx(3)
  double precision, allocatable :: cons(:,:,:,:), q(:,:,:,:), flux(:,:,:,:)

  n = int_arg(1, 64)
  sweeps = int_arg(2, 1)
  call init_flush(int_arg(3, 8*1024*1024))
  lo = 1
  hi = n
  dx = 1.0d0 / n
  allocate (cons(lo(1)-ng:hi(1)+ng, lo(2)-ng:hi(2)+ng, lo(3)-ng:hi(3)+ng, 5))
  allocate (q(lo(1)-ng:hi(1)+ng, lo(2)-ng:hi(2)+ng, lo(3)-ng:hi(3)+ng, 6))
  allocate (flux(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3), 5))
  call fill(cons, size(cons), 1.0d0)
  call fill(q, size(q), 2.0d0)
  call fill(flux, size(flux), 0.0d0)
  do s = 1, sweeps
    call flush_cache()
    call hypterm(lo, hi, ng, dx, cons, q, flux)
  end do
  call flush_cache()
  print *, flux(1,1,1,1) + sink
end program hypterm_driver
