! One-step Arrhenius chemistry (a chemistry-like pointwise kernel): forward rate
! kf = A T^beta exp(-Ea/(R T)) written as exp(log A + beta log T - Ea/R / T), backward rate
! from the equilibrium constant, net reaction rate from the fuel and product mass fractions.
!
! What the analysis should find, per innermost iteration (loop i):
!   flops: 3 adds, 6 multiplies, 2 divides, 2 specials (one exp, one log)
!   temp read twice at (0,0,0), rho read twice at (0,0,0); keq, yfuel, yprod read once;
!   all read-only; rate write-only at (0,0,0)
! With a machine whose SpecialCost is high this kernel is compute bound.
subroutine chemistry(lo, hi, loga, beta, ea_r, temp, rho, keq, yfuel, yprod, rate)
  implicit none
  integer, intent(in) :: lo(3), hi(3)
  double precision, intent(in) :: loga, beta, ea_r
  double precision, intent(in), dimension(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3)) :: &
       temp, rho, keq, yfuel, yprod
  double precision, intent(out) :: rate(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3))
  integer :: i, j, k
  double precision :: tinv, logt, kf, kr

  do k = lo(3), hi(3)
    do j = lo(2), hi(2)
      do i = lo(1), hi(1)
        tinv = 1.0d0 / temp(i,j,k)                       ! 1 divide
        logt = log(temp(i,j,k))                          ! 1 special
        kf = exp(loga + beta*logt - ea_r*tinv)           ! 1 special, 2 multiplies, 2 adds
        kr = kf / keq(i,j,k)                             ! 1 divide
        ! 4 multiplies, 1 add (the subtraction)
        rate(i,j,k) = kf * rho(i,j,k) * yfuel(i,j,k) - kr * rho(i,j,k) * yprod(i,j,k)
      end do
    end do
  end do
end subroutine chemistry
