! plug_fortran.f90 - what gfortran makes of OpenMP constructs, after dsm's
! GCC plug-in (the gnu suite, at -O0 and -O2): atomics on shared data and
! the combination of reductions become runtime calls, an update gcc has no
! instruction for (a real add, a max) is a compare-exchange loop seeded by
! load_seed, flush is the runtime's, and the copyin of a threadprivate
! common block announces the size of the region's data block.
!
! UPDATES-LABEL: Function updates_._omp_fn.0
! UPDATES: __dsm_atomic_rmw_4 (
! UPDATES: __dsm_atomic_load_seed_8 (
! UPDATES: __dsm_atomic_cmpxchg_8 (
! UPDATES: __dsm_atomic_load_seed_4 (
! UPDATES: __dsm_atomic_cmpxchg_4 (
! UPDATES: __kmpc_flush (0B)
!
! COPYIN-LABEL: Function copied (
! COPYIN: __dsm_gomp_data_size (
! COPYIN-NEXT: GOMP_parallel (copied_._omp_fn.0
module plug_shared
  implicit none
  integer :: hits, top
  double precision :: total
end module plug_shared

subroutine updates(n)
  use plug_shared
  implicit none
  integer, intent(in) :: n
  integer :: i
!$omp parallel do
  do i = 1, n
!$omp atomic
    hits = hits + 1
!$omp atomic
    total = total + 0.5d0
!$omp atomic
    top = max(top, i)
!$omp flush
  end do
!$omp end parallel do
end subroutine updates

subroutine copied()
  implicit none
  integer :: tab(50), k
  common /tpc/ tab, k
!$omp threadprivate(/tpc/)
!$omp parallel copyin(/tpc/)
  tab(2) = tab(1) + k
!$omp end parallel
end subroutine copied
