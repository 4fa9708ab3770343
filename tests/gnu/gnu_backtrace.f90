! gnu_backtrace.f90 - a Fortran program whose team writes a shared array
! from every node.  Built by dsmfort with -fbacktrace (which dsmfort
! overrides) it runs; its main program compiled by plain gfortran (which
! asks libgfortran for a SIGSEGV handler of its own, taking the DSM's page
! faults) ends the job with a message naming the cause.  The gnu suite.
program gnu_backtrace
  implicit none
  integer :: i, a(4000)
!$omp parallel do
  do i = 1, 4000
    a(i) = i
  end do
!$omp end parallel do
  print '(a,i0)', 'result: ', sum(a)
end program gnu_backtrace
