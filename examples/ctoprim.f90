! Conserved to primitive variables (CNS-like "ctoprim"): a pointwise kernel, no stencil, with
! divisions. Each cell's density, momenta and total energy give velocity, pressure and
! temperature of an ideal gas.
!
! What the analysis should find, per innermost iteration (loop i):
!   flops: 3 adds, 10 multiplies, 2 divides (worked out line by line in the comments)
!   u split into pairs u.irho (read twice), u.imx, u.imy, u.imz, u.iene: read-only at (0,0,0)
!   q split into pairs q.qrho, q.qu, q.qv, q.qw, q.qpres, q.qtemp: write-only at (0,0,0)
! Its cost is dominated by memory traffic and by the two divides.
module ctoprim_constants
  implicit none
  integer, parameter :: irho = 1, imx = 2, imy = 3, imz = 4, iene = 5
  integer, parameter :: qrho = 1, qu = 2, qv = 3, qw = 4, qpres = 5, qtemp = 6
end module ctoprim_constants

subroutine ctoprim(lo, hi, ng, gamm1, cv, u, q)
  use ctoprim_constants
  implicit none
  integer, intent(in) :: lo(3), hi(3), ng
  double precision, intent(in) :: gamm1, cv
  double precision, intent(in) :: u(lo(1)-ng:hi(1)+ng, lo(2)-ng:hi(2)+ng, lo(3)-ng:hi(3)+ng, 5)
  double precision, intent(out) :: q(lo(1)-ng:hi(1)+ng, lo(2)-ng:hi(2)+ng, lo(3)-ng:hi(3)+ng, 6)
  integer :: i, j, k
  double precision :: rhoinv, ux, vy, wz, eint

  do k = lo(3)-ng, hi(3)+ng
    do j = lo(2)-ng, hi(2)+ng
      do i = lo(1)-ng, hi(1)+ng
        rhoinv = 1.0d0 / u(i,j,k,irho)                 ! 1 divide
        ux = u(i,j,k,imx) * rhoinv                     ! 1 multiply
        vy = u(i,j,k,imy) * rhoinv                     ! 1 multiply
        wz = u(i,j,k,imz) * rhoinv                     ! 1 multiply
        ! 5 multiplies (rhoinv, 0.5, three squares), 3 adds (one subtraction, two sums)
        eint = u(i,j,k,iene) * rhoinv - 0.5d0 * (ux*ux + vy*vy + wz*wz)
        q(i,j,k,qrho) = u(i,j,k,irho)
        q(i,j,k,qu) = ux
        q(i,j,k,qv) = vy
        q(i,j,k,qw) = wz
        q(i,j,k,qpres) = gamm1 * u(i,j,k,irho) * eint  ! 2 multiplies
        q(i,j,k,qtemp) = eint / cv                     ! 1 divide
      end do
    end do
  end do
end subroutine ctoprim
