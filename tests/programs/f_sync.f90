! f_sync.f90 - synchronisation in Fortran: atomic update, read, write and
! capture on integers and reals in a module, a common block and an
! allocatable array, atomic max/min; critical sections (unnamed and named);
! single with copyprivate of a scalar and an array; master; barrier; simple
! and nestable locks.  Every count is checked against what the team size
! says it must be (programs corpus, issue 21).
module counters
  implicit none
  integer :: hits
  double precision :: weight
  integer(8) :: big_hits
end module counters

program f_sync
  use omp_lib
  use counters
  implicit none
  integer :: nthreads, errors, i, crit_a, crit_b, seen_zero, order_ok
  integer :: captured(0:63), master_count, shared_max, shared_min
  integer :: ticket
  integer :: cblk(4)
  common /cblock/ cblk
  double precision, allocatable :: acc(:)
  integer(omp_lock_kind) :: lock
  integer(omp_nest_lock_kind) :: nlock
  integer :: in_lock, nested_ok

  errors = 0
  hits = 0; weight = 0; big_hits = 0; cblk = 0
  crit_a = 0; crit_b = 0; seen_zero = 0; master_count = 0
  shared_max = -1; shared_min = huge(1); ticket = 0; captured = -1
  in_lock = 0; nested_ok = 0; order_ok = 0
  allocate(acc(3))
  acc = 0
  call omp_init_lock(lock)
  call omp_init_nest_lock(nlock)

!$omp parallel shared(nthreads) private(i)
!$omp single
  nthreads = omp_get_num_threads()
!$omp end single
  do i = 1, 100
!$omp atomic
    hits = hits + 1
!$omp atomic update
    weight = weight + 0.25d0
!$omp atomic
    big_hits = big_hits + 3_8
!$omp atomic
    cblk(2) = cblk(2) + 2
!$omp atomic
    acc(2) = acc(2) + 1.5d0
!$omp atomic
    shared_max = max(shared_max, mod(i * 37 + omp_get_thread_num(), 211))
!$omp atomic
    shared_min = min(shared_min, mod(i * 37 + omp_get_thread_num(), 211) + 3)
  end do
!$omp atomic capture
  ticket = ticket + 1
  i = ticket
!$omp end atomic
  captured(omp_get_thread_num()) = i
!$omp critical
  crit_a = crit_a + 1
!$omp end critical
!$omp critical (second)
  crit_b = crit_b + 2
!$omp end critical (second)
!$omp master
  master_count = master_count + 1
!$omp end master
  call omp_set_lock(lock)
  in_lock = in_lock + 1
  call omp_unset_lock(lock)
  call omp_set_nest_lock(nlock)
  call omp_set_nest_lock(nlock)
  if (omp_test_nest_lock(nlock) == 3) then
!$omp atomic
    nested_ok = nested_ok + 1
  end if
  call omp_unset_nest_lock(nlock)
  call omp_unset_nest_lock(nlock)
  call omp_unset_nest_lock(nlock)
!$omp barrier
!$omp atomic write
  cblk(4) = 7
!$omp atomic read
  i = cblk(4)
  if (i /= 7) then
!$omp atomic
    seen_zero = seen_zero + 1
  end if
!$omp end parallel

  call check_copyprivate()

  ! every ticket from 1 to nthreads once
  do i = 1, nthreads
    if (count(captured(0:nthreads - 1) == i) == 1) order_ok = order_ok + 1
  end do
  if (hits /= 100 * nthreads) errors = errors + 1
  if (abs(weight - 25d0 * nthreads) > 0d0) errors = errors + 1
  if (big_hits /= 300_8 * nthreads .or. cblk(2) /= 200 * nthreads) &
    errors = errors + 1
  if (abs(acc(2) - 150d0 * nthreads) > 0d0) errors = errors + 1
  if (crit_a /= nthreads .or. crit_b /= 2 * nthreads) errors = errors + 1
  if (master_count /= 1 .or. in_lock /= nthreads) errors = errors + 1
  if (nested_ok /= nthreads .or. seen_zero /= 0) errors = errors + 1
  if (order_ok /= nthreads) errors = errors + 1
  if (shared_max /= 210 .or. shared_min /= 3) errors = errors + 1
  print '(a,i0,1x,f0.2,1x,i0,1x,i0,1x,f0.1)', 'result: atomics ', hits, &
        weight, big_hits, cblk(2), acc(2)
  print '(a,i0,1x,i0)', 'result: atomic max min ', shared_max, shared_min
  print '(a,i0,1x,i0,1x,i0)', 'result: critical master ', crit_a, crit_b, &
        master_count
  print '(a,i0,1x,i0,1x,i0)', 'result: tickets locks ', order_ok, in_lock, &
        nested_ok
  call omp_destroy_lock(lock)
  call omp_destroy_nest_lock(nlock)
  deallocate(acc)
  if (errors /= 0) then
    print '(a,i0)', 'f_sync errors: ', errors
    stop 1
  end if

contains

  ! single copyprivate: a scalar and an array from one thread to all
  subroutine check_copyprivate()
    integer :: mine, vec(5), bad, k
    bad = 0
!$omp parallel private(mine, vec) reduction(+:bad)
!$omp single
    mine = 4242
    vec = [(k * k, k = 1, 5)]
!$omp end single copyprivate(mine, vec)
    if (mine /= 4242) bad = bad + 1
    do k = 1, 5
      if (vec(k) /= k * k) bad = bad + 1
    end do
!$omp end parallel
    if (bad /= 0) errors = errors + 1
    print '(a,i0)', 'result: copyprivate wrong values ', bad
  end subroutine check_copyprivate

end program f_sync
