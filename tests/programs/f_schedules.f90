! f_schedules.f90 - parallel do loops with every schedule (static, static
! with a chunk, dynamic, guided, runtime, auto, nonmonotonic), ordered,
! collapse, a reverse loop, 64-bit iteration variables, nowait loops and
! lastprivate, each checked against the same loop run serially.  The
! results depend on nothing but the loops (programs corpus, issue 21).
module sched_data
  implicit none
  integer, parameter :: n = 5003
  integer :: hits(n)
  integer(8) :: owner_sum
end module sched_data

program f_schedules
  use omp_lib
  use sched_data
  implicit none
  integer :: i, j, errors, last, seq(200), pos
  integer(8) :: k, big
  double precision :: grid(60, 70), total

  errors = 0

  ! every schedule: each iteration exactly once
  hits = 0
!$omp parallel do schedule(static)
  do i = 1, n
    hits(i) = hits(i) + 1
  end do
!$omp end parallel do
  call check('static')
!$omp parallel do schedule(static, 3)
  do i = 1, n
    hits(i) = hits(i) + 1
  end do
!$omp end parallel do
  call check('static,3')
!$omp parallel do schedule(dynamic)
  do i = 1, n
    hits(i) = hits(i) + 1
  end do
!$omp end parallel do
  call check('dynamic')
!$omp parallel do schedule(dynamic, 17)
  do i = 1, n
    hits(i) = hits(i) + 1
  end do
!$omp end parallel do
  call check('dynamic,17')
!$omp parallel do schedule(guided)
  do i = 1, n
    hits(i) = hits(i) + 1
  end do
!$omp end parallel do
  call check('guided')
!$omp parallel do schedule(guided, 7)
  do i = 1, n
    hits(i) = hits(i) + 1
  end do
!$omp end parallel do
  call check('guided,7')
!$omp parallel do schedule(runtime)
  do i = 1, n
    hits(i) = hits(i) + 1
  end do
!$omp end parallel do
  call check('runtime')
!$omp parallel do schedule(auto)
  do i = 1, n
    hits(i) = hits(i) + 1
  end do
!$omp end parallel do
  call check('auto')
!$omp parallel do schedule(nonmonotonic: dynamic, 5)
  do i = 1, n
    hits(i) = hits(i) + 1
  end do
!$omp end parallel do
  call check('nonmonotonic:dynamic,5')
!$omp parallel do schedule(monotonic: dynamic, 5)
  do i = 1, n
    hits(i) = hits(i) + 1
  end do
!$omp end parallel do
  call check('monotonic:dynamic,5')

  ! a reverse loop with a stride, inside a parallel region, nowait
!$omp parallel
!$omp do schedule(dynamic, 4)
  do i = n, 1, -3
    hits(i) = hits(i) + 1
  end do
!$omp end do nowait
!$omp do schedule(guided, 2)
  do i = n - 1, 1, -3
    hits(i) = hits(i) + 1
  end do
!$omp end do nowait
!$omp do schedule(static, 11)
  do i = n - 2, 1, -3
    hits(i) = hits(i) + 1
  end do
!$omp end do
!$omp end parallel
  call check('reverse strides')

  ! 64-bit iteration variables beyond 2**32
  big = 5000000000_8
  owner_sum = 0
!$omp parallel do schedule(dynamic, 100) reduction(+:owner_sum)
  do k = big, big + 9999
    owner_sum = owner_sum + (k - big)
  end do
!$omp end parallel do
  if (owner_sum /= 49995000_8) errors = errors + 1
  print '(a,i0)', 'result: 64-bit sum ', owner_sum

  ! ordered: the sequence is written in iteration order
  pos = 0
!$omp parallel do ordered schedule(dynamic, 3)
  do i = 1, 200
!$omp ordered
    pos = pos + 1
    seq(pos) = i
!$omp end ordered
  end do
!$omp end parallel do
  do i = 1, 200
    if (seq(i) /= i) errors = errors + 1
  end do
  pos = 0
!$omp parallel do ordered schedule(static, 5)
  do i = 1, 200
    if (mod(i, 3) == 0) then
!$omp ordered
      pos = pos + 1
      seq(pos) = i
!$omp end ordered
    end if
  end do
!$omp end parallel do
  do i = 1, pos
    if (seq(i) /= 3 * i) errors = errors + 1
  end do
  print '(a,i0,a,i0)', 'result: ordered ', 200, ' then every third ', pos

  ! collapse(2) and lastprivate
  grid = 0
!$omp parallel do collapse(2) schedule(guided) lastprivate(last)
  do j = 1, 70
    do i = 1, 60
      grid(i, j) = dble(i) + 100 * dble(j)
      last = i + 1000 * j
    end do
  end do
!$omp end parallel do
  total = sum(grid)
  if (last /= 60 + 1000 * 70) errors = errors + 1
  print '(a,f0.1,a,i0)', 'result: collapse ', total, ' last ', last

  if (errors /= 0) then
    print '(a,i0)', 'f_schedules errors: ', errors
    stop 1
  end if

contains

  subroutine check(what)
    character(len=*), intent(in) :: what
    integer :: m, bad
    bad = 0
    do m = 1, n
      if (hits(m) /= 1) bad = bad + 1
    end do
    if (bad /= 0) errors = errors + 1
    print '(3a,i0)', 'result: ', what, ' iterations missed or repeated ', bad
    hits = 0
  end subroutine check

end program f_schedules
