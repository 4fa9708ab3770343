! f_threadprivate.f90 - threadprivate data in Fortran: common blocks (an
! array and scalars) and module variables, copyin of both from the master
! into every thread of the team, values that persist from one region to
! the next, and copyprivate of a threadprivate common block.  gfortran
! keeps these in thread-local storage and passes the master's arrays by
! address: the team's threads on other nodes must still see the master's
! values (programs corpus, issue 21).
module tp_module
  implicit none
  integer :: counter
  double precision :: table(300)
!$omp threadprivate(counter, table)
end module tp_module

program f_threadprivate
  use omp_lib
  use tp_module
  implicit none
  integer :: work(100), seed
  double precision :: scale
  common /tpwork/ work, scale, seed
!$omp threadprivate(/tpwork/)
  integer :: errors, i, nthreads, bad_copyin, bad_persist, bad_private

  errors = 0
  bad_copyin = 0; bad_persist = 0; bad_private = 0
  do i = 1, 100
    work(i) = 3 * i
  end do
  scale = 2.5d0
  seed = 99
  counter = 7
  do i = 1, 300
    table(i) = dble(i) / 8
  end do

  ! copyin: every thread starts with the master's values
!$omp parallel copyin(/tpwork/, counter, table) reduction(+:bad_copyin)
  do i = 1, 100
    if (work(i) /= 3 * i) bad_copyin = bad_copyin + 1
  end do
  do i = 1, 300
    if (abs(table(i) - dble(i) / 8) > 0d0) bad_copyin = bad_copyin + 1
  end do
  if (abs(scale - 2.5d0) > 0d0 .or. seed /= 99 .or. counter /= 7) &
    bad_copyin = bad_copyin + 1
  ! then each thread makes its copies its own
  seed = 1000 + omp_get_thread_num()
  counter = omp_get_thread_num()
  work(1) = -omp_get_thread_num()
  table(300) = dble(omp_get_thread_num())
!$omp end parallel

  ! the copies persist into the next region (same team size, no dynamic
  ! adjustment): each thread finds what it left
!$omp parallel reduction(+:bad_persist) shared(nthreads)
!$omp single
  nthreads = omp_get_num_threads()
!$omp end single
  if (seed /= 1000 + omp_get_thread_num()) bad_persist = bad_persist + 1
  if (counter /= omp_get_thread_num()) bad_persist = bad_persist + 1
  if (work(1) /= -omp_get_thread_num()) bad_persist = bad_persist + 1
  if (abs(table(300) - dble(omp_get_thread_num())) > 0d0) &
    bad_persist = bad_persist + 1
!$omp end parallel

  ! copyprivate of the common block: one thread's values to all
!$omp parallel reduction(+:bad_private)
!$omp single
  work = 11
  scale = -1d0
  seed = 5
!$omp end single copyprivate(/tpwork/)
  if (any(work /= 11) .or. abs(scale + 1d0) > 0d0 .or. seed /= 5) &
    bad_private = bad_private + 1
!$omp end parallel

  ! a second copyin after the threads changed their copies
  work(50) = 123456
  counter = 31
!$omp parallel copyin(/tpwork/, counter) reduction(+:bad_copyin)
  if (work(50) /= 123456 .or. counter /= 31 .or. work(1) /= 11) &
    bad_copyin = bad_copyin + 1
!$omp end parallel

  if (bad_copyin + bad_persist + bad_private /= 0) errors = errors + 1
  print '(a,i0)', 'result: threads ', nthreads
  print '(a,i0,1x,i0,1x,i0)', 'result: wrong copyin persist copyprivate ', &
        bad_copyin, bad_persist, bad_private
  if (errors /= 0) then
    print '(a,i0)', 'f_threadprivate errors: ', errors
    stop 1
  end if
end program f_threadprivate
