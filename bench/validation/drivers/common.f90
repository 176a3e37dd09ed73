! Shared pieces of the validation drivers: command-line arguments and the cache flush.
!
! Every driver runs: allocate and initialise the kernel's arrays, then SWEEPS times
! "flush the cache, call the kernel", then a final flush.  The flush reads a scratch array
! much larger than the simulated cache, so each call of the kernel starts from a cold cache
! (the model's assumption: every sweep streams its data from memory) and every line the
! kernel dirtied is written back before the run ends.  The scratch array is only read after
! its initialisation, so the flushes themselves write nothing back.
module validation_common
  implicit none
  double precision, allocatable, save :: scratch(:)
  double precision, save :: sink = 0.0d0
contains

  integer function int_arg(position, default)
    integer, intent(in) :: position, default
    character(len=32) :: text
    integer :: status
    int_arg = default
    if (command_argument_count() >= position) then
      call get_command_argument(position, text)
      read (text, *, iostat=status) int_arg
      if (status /= 0) int_arg = default
    end if
  end function int_arg

  subroutine init_flush(bytes)
    integer, intent(in) :: bytes
    integer :: n, i
    n = max(1, bytes / 8)
    allocate (scratch(n))
    do i = 1, n
      scratch(i) = 1.0d0 / i
    end do
  end subroutine init_flush

  subroutine flush_cache()
    integer :: i
    double precision :: s
    s = 0.0d0
    do i = 1, size(scratch)
      s = s + scratch(i)
    end do
    sink = sink + s
  end subroutine flush_cache

  subroutine fill(a, n, seed)
    integer, intent(in) :: n
    double precision, intent(out) :: a(n)
    double precision, intent(in) :: seed
    integer :: i
    do i = 1, n
      a(i) = seed + 1.0d-3 * mod(i, 97)
    end do
  end subroutine fill
end module validation_common
