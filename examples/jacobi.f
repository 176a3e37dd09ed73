C     Jacobi sweep for the 2-D Poisson equation, in fixed-form Fortran 77
C     with a DO loop pair sharing one terminal label (DO 10 ... 10 CONTINUE).
C
C     What the analysis should find:
C       nest 1 (J, then I innermost), per iteration: 4 adds (three sums
C       and one subtraction), 2 multiplies (H2*F and 0.25*(...)); U read
C       at (-1,0), (1,0), (0,-1), (0,1), F read at (0,0), UNEW written
C       at (0,0): U needs 3 pencils (columns) for reuse
C       nest 2 (copy back), per iteration: no flops; UNEW read at (0,0),
C       U written at (0,0)
      SUBROUTINE JACOBI(N, M, H2, U, UNEW, F)
      INTEGER N, M
      DOUBLE PRECISION H2
      DOUBLE PRECISION U(N, M), UNEW(N, M), F(N, M)
      INTEGER I, J
      DO 10 J = 2, M - 1
      DO 10 I = 2, N - 1
         UNEW(I, J) = 0.25D0 * (U(I-1, J) + U(I+1, J) + U(I, J-1)
     &              + U(I, J+1) - H2 * F(I, J))
   10 CONTINUE
      DO 30 J = 2, M - 1
         DO 20 I = 2, N - 1
            U(I, J) = UNEW(I, J)
   20    CONTINUE
   30 CONTINUE
      RETURN
      END
