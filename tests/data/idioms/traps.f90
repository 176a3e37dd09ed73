! Hand-labelled loops for idiom recognition (tests/test_idioms.py). The comment on each loop
! lists every idiom it has, as idiom:array; nothing else may be found there.
module traps_mod
  implicit none
contains
  integer function pick(i)
    integer, intent(in) :: i
    pick = i; if (pick < 1) pick = 1  ! two statements: no index function to inline
  end function pick

  subroutine traps(n, nnz, a, b, c, x, y, s, idx, col, row, v, m)
    integer, intent(in) :: n, nnz
    double precision, intent(inout) :: a(n), b(n, n), c(n, n), x(n), y(n), s, v(nnz), m
    integer, intent(in) :: idx(n), col(nnz), row(nnz)
    integer :: i, j, k, jj, cnt
    double precision :: t

    do i = 1, n   ! stream:a stream:b -- a(idx(1)) is an invariant indirection, no gather
      a(i) = a(idx(1)) + b(2*i, 1)
    end do
    do i = 1, n   ! reduction:s stream:a
      s = s + a(i)
    end do
    do j = 1, n
      do i = 1, n   ! reduction:y stream:c stream:x -- y(j) does not move in the i loop
        y(j) = y(j) + c(i,j) * x(i)
      end do
    end do
    do k = 1, nnz   ! scatter:y gather:x stream:row stream:col stream:v
      y(row(k)) = v(k) * x(col(k))
    end do
    do j = 1, n
      do i = 1, n   ! transpose:b transpose:c
        b(j,i) = c(i,j)
      end do
    end do
    do i = 2, n - 1   ! stencil:a stream:x
      x(i) = a(i-1) + a(i) + a(i+1)
    end do
    do i = 1, n   ! irregular:a stream:x -- a function result as index, with a warning
      x(i) = a(pick(i))
    end do
    cnt = 0
    do i = 1, n   ! stream:a stream:b -- a counter is no reduction
      cnt = cnt + 1
      b(i, 1) = a(i)
    end do
    do k = 1, nnz   ! gather:x reduction:s stream:col stream:v -- x(jj) after jj = col(k)
      jj = col(k)
      t = v(k) * x(jj)
      s = s + t
    end do
    do i = 1, n   ! reduction:m stream:a -- a maximum
      if (a(i) > m) m = a(i)
    end do
  end subroutine traps
end module traps_mod
