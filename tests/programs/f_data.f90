! f_data.f90 - where Fortran keeps shared data, all of it shared between
! nodes without annotation: module arrays and a module derived type, a
! common block, SAVE variables, ALLOCATABLE arrays allocated in serial
! code and inside a single construct, an automatic array and a local array
! of a procedure (on the master's stack or gfortran's heap), dummy
! arguments; with firstprivate, lastprivate, sections, workshare and tasks
! (programs corpus, issue 21).
module mesh
  implicit none
  integer, parameter :: nx = 300
  double precision :: field(nx, nx)
  type stats_t
    integer :: cells
    double precision :: mass
  end type stats_t
  type(stats_t) :: stats
end module mesh

module helpers
  implicit none
contains
  ! a local array of the procedure and an automatic one sized by its
  ! argument, shared by the team it starts
  subroutine stencil(n, src, total)
    integer, intent(in) :: n
    double precision, intent(in) :: src(n)
    double precision, intent(out) :: total
    double precision :: local(400), automatic(n)
    integer :: i
!$omp parallel do
    do i = 1, n
      automatic(i) = 2 * src(i)
      local(i) = src(i) + 1
    end do
!$omp end parallel do
    total = 0
!$omp parallel do reduction(+:total)
    do i = 2, n - 1
      total = total + automatic(i - 1) + automatic(i + 1) - local(i)
    end do
!$omp end parallel do
  end subroutine stencil

  ! SAVE variables keep their values between calls and are shared
  integer function next_id()
    integer, save :: last = 0
!$omp parallel
!$omp single
    last = last + 1
!$omp end single
!$omp end parallel
    next_id = last
  end function next_id
end module helpers

program f_data
  use omp_lib
  use mesh
  use helpers
  implicit none
  integer :: coeffs(8)
  common /params/ coeffs
  double precision, allocatable :: line(:), made_inside(:)
  integer :: i, j, errors, first_val, last_i, sec(3), id1, id2, n_inside
  double precision :: total, want_total, wsum, tasks_sum
  integer :: task_out(20)

  errors = 0
  coeffs = [(i, i = 1, 8)]
  allocate(line(nx))
  do i = 1, nx
    line(i) = dble(i)
  end do

  ! module array and derived type, written by the team
  stats = stats_t(0, 0d0)
  wsum = 0
!$omp parallel do collapse(2)
  do j = 1, nx
    do i = 1, nx
      field(i, j) = line(i) * coeffs(mod(j, 8) + 1)
    end do
  end do
!$omp end parallel do
!$omp parallel do reduction(+:wsum)
  do j = 1, nx
    wsum = wsum + sum(field(:, j))
  end do
!$omp end parallel do
!$omp parallel
!$omp atomic
  stats%cells = stats%cells + 1
!$omp end parallel
  stats%mass = wsum
  want_total = 0
  do j = 1, nx
    want_total = want_total + sum(line) * coeffs(mod(j, 8) + 1)
  end do
  if (abs(wsum - want_total) > 0d0) errors = errors + 1

  ! an allocatable array allocated by one thread, used by all
  n_inside = 0
!$omp parallel shared(made_inside, n_inside)
!$omp single
  allocate(made_inside(1000))
  made_inside = 0
!$omp end single
!$omp do
  do i = 1, 1000
    made_inside(i) = made_inside(i) + i
  end do
!$omp end do
!$omp single
  n_inside = int(sum(made_inside))
  deallocate(made_inside)
!$omp end single
!$omp end parallel

  ! local and automatic arrays of a procedure
  call stencil(nx, line, total)
  want_total = 0
  do i = 2, nx - 1
    want_total = want_total + 2 * line(i - 1) + 2 * line(i + 1) - line(i) - 1
  end do
  if (abs(total - want_total) > 0d0) errors = errors + 1

  ! SAVE
  id1 = next_id()
  id2 = next_id()
  if (id1 /= 1 .or. id2 /= 2) errors = errors + 1

  ! firstprivate and lastprivate
  first_val = 40
!$omp parallel do firstprivate(first_val) lastprivate(last_i)
  do i = 1, 77
    first_val = first_val + 1
    last_i = i * 2
  end do
!$omp end parallel do
  if (last_i /= 154 .or. first_val /= 40) errors = errors + 1

  ! sections
  sec = 0
!$omp parallel sections
!$omp section
  sec(1) = int(sum(line(1:10)))
!$omp section
  sec(2) = coeffs(8) * 10
!$omp section
  sec(3) = stats%cells * 0 + 3
!$omp end parallel sections

  ! workshare: array assignments and a reduction intrinsic split by the
  ! team
!$omp parallel
!$omp workshare
  line = line * 2
  field(:, 1) = line + 1
  wsum = sum(field(:, 1))
!$omp end workshare
!$omp end parallel
  if (abs(wsum - (dble(nx) * (nx + 1) + nx)) > 0d0) errors = errors + 1

  ! tasks writing a shared array
  task_out = 0
!$omp parallel
!$omp single
  do i = 1, 20
!$omp task firstprivate(i)
    task_out(i) = i * i
!$omp end task
  end do
!$omp taskwait
!$omp end single
!$omp end parallel
  tasks_sum = sum(task_out)

  print '(a,f0.1,1x,i0)', 'result: module mass and cells ', stats%mass, &
        min(stats%cells, 1)
  print '(a,i0)', 'result: allocated inside single ', n_inside
  print '(a,f0.1)', 'result: stencil ', total
  print '(a,i0,1x,i0)', 'result: save ', id1, id2
  print '(a,i0,1x,i0)', 'result: first last ', first_val, last_i
  print '(a,3(1x,i0))', 'result: sections', sec
  print '(a,f0.1)', 'result: workshare ', wsum
  print '(a,f0.1)', 'result: tasks ', tasks_sum
  deallocate(line)
  if (errors /= 0) then
    print '(a,i0)', 'f_data errors: ', errors
    stop 1
  end if
end program f_data
