! Sparse matrix-vector product y = y + A x, A in compressed sparse row (CSR) form: the nonzeros
! of row i are a(rowptr(i)) .. a(rowptr(i+1)-1), in the columns col(rowptr(i)) ..
!
! What the analysis should find, per iteration of the inner loop (loop k, over a row):
!   flops: 1 add, 1 multiply
!   a, col: read-only at offset (0) on k; y: read and written at (0) on i, the outer variable;
!   x: read through the index array col
! Idioms (the Idioms sheet): in loop k, stream on a and col, gather on x (x(col(k))), and
! reduction on y (y(i) is carried from one k to the next); in loop i, stencil on rowptr
! (rowptr(i) and rowptr(i+1), the bounds of the row). With --idioms examples/idioms/sparse.yaml,
! csr_row_product on y as well.
! The bounds of loop k, rowptr(i) and rowptr(i+1) - 1, become the problem parameters rowptr_i
! and rowptr_i_1: set them (--set) to the extent of a typical row.
subroutine spmv(n, nnz, rowptr, col, a, x, y)
  implicit none
  integer, intent(in) :: n, nnz
  integer, intent(in) :: rowptr(n+1), col(nnz)
  double precision, intent(in) :: a(nnz), x(n)
  double precision, intent(inout) :: y(n)
  integer :: i, k

  do i = 1, n
    do k = rowptr(i), rowptr(i+1) - 1
      y(i) = y(i) + a(k) * x(col(k))
    end do
  end do
end subroutine spmv
