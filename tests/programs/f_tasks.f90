! f_tasks.f90 - explicit tasks as gfortran compiles them (GOMP_task): a
! master generates tasks while the team executes them (each task waits
! until the master has made them all, so they must be deferred),
! recursive fib with taskwait, a depend chain whose order is checked, and
! a taskloop with its implicit taskgroup.
!
! Corpus program (tests/programs, compiler 'fortran'): stops with code 1
! when wrong.  Every wait is bounded, so a runtime that does not defer
! tasks fails instead of hanging.
module f_tasks_mod
  use omp_lib
  implicit none
  integer :: timed_out = 0
contains
  subroutine wait_for(flag, value)
    integer, intent(inout) :: flag
    integer, intent(in) :: value
    integer :: v, out
    double precision :: t0
    t0 = omp_get_wtime()
    do
      !$omp atomic read
      v = flag
      if (v >= value) return
      !$omp atomic read
      out = timed_out
      if (out /= 0) return
      if (omp_get_wtime() - t0 > 10d0) then
        print '(a)', 'f_tasks: waited too long'
        !$omp atomic write
        timed_out = 1
        return
      end if
    end do
  end subroutine wait_for

  recursive function fib(n) result(r)
    integer, intent(in) :: n
    integer :: r, a, b
    if (n < 2) then
      r = n
      return
    end if
    !$omp task shared(a) firstprivate(n)
    a = fib(n - 1)
    !$omp end task
    !$omp task shared(b) firstprivate(n)
    b = fib(n - 2)
    !$omp end task
    !$omp taskwait
    r = a + b
  end function fib
end module f_tasks_mod

program f_tasks
  use omp_lib
  use f_tasks_mod
  implicit none
  integer, parameter :: ntasks = 40
  integer :: generated, executed, i, k, f20, seq, errors
  integer :: pos(0:3)
  integer(8) :: chain, loop_sum

  generated = 0
  executed = 0
  chain = 0
  seq = 0
  pos = 0
  loop_sum = 0
  errors = 0

  !$omp parallel private(i, k)
  !$omp master
  do i = 1, ntasks
    !$omp task firstprivate(i) shared(generated, executed)
    call wait_for(generated, 1)
    !$omp atomic
    executed = executed + i
    !$omp end task
  end do
  !$omp atomic write
  generated = 1
  !$omp end master
  !$omp barrier

  !$omp single
  f20 = fib(20)
  !$omp end single

  !$omp single
  !$omp task depend(out: chain) shared(chain, seq, pos)
  chain = 1
  !$omp atomic capture
  seq = seq + 1
  pos(0) = seq
  !$omp end atomic
  !$omp end task
  do k = 1, 8
    !$omp task depend(inout: chain) firstprivate(k) shared(chain)
    chain = chain * 3 + k
    !$omp end task
  end do
  !$omp task depend(in: chain) shared(chain, seq, pos)
  !$omp atomic capture
  seq = seq + 1
  pos(1) = seq
  !$omp end atomic
  if (chain /= 11477) pos(3) = 1
  !$omp end task
  !$omp taskwait

  !$omp taskloop num_tasks(4) shared(loop_sum)
  do k = 1, 100
    !$omp atomic
    loop_sum = loop_sum + k
  end do
  !$omp end taskloop
  if (loop_sum /= 5050) pos(3) = 1
  !$omp end single
  !$omp end parallel

  if (executed /= ntasks * (ntasks + 1) / 2) errors = errors + 1
  if (f20 /= 6765) errors = errors + 1
  if (.not. (pos(0) < pos(1)) .or. pos(3) /= 0) errors = errors + 1
  if (timed_out /= 0) errors = errors + 1
  print '(a, i0, a, i0)', 'result: executed ', executed, ' fib20 ', f20
  print '(a, i0, a, i0)', 'result: chain ', chain, ' taskloop ', loop_sum
  if (errors /= 0) then
    print '(a, i0, a)', 'f_tasks: ', errors, ' errors'
    stop 1
  end if
end program f_tasks
