! jacobi_omp.f90 - the Jacobi kernel of jacobi_omp.c written as a Fortran
! OpenMP programmer would: ALLOCATABLE grids, a parallel do over rows with
! a static schedule, either one parallel region per sweep (-v sweep, the
! default) or one region around all sweeps whose orphaned do loops the
! team shares (-v region).  Same problem (jacobi_problem.h): an (n+2)^2
! grid whose interior starts from ((i*i + 3*j*j + i*j) mod 64) / 64, top
! edge sin(pi*j/(n+1)), other edges 0, k sweeps of
! 0.25 * (up + down + left + right) summed in that order, so that every
! version computes the same bits at every point.  Row i of the C grid is
! column i here (a(j, i)), so rows stay contiguous.
!
! Built by dsmfort for dsmomp and by gfortran -fopenmp for libgomp
! (apps/meson.build); scripts/run-apps.sh compares it with the C and MPI
! versions.  Prints the same result line as the C programs.
!
! Usage: jacobi_f [-n SIZE] [-k ITERATIONS] [-v sweep|region] [-c]
! Exit status: 0 right, 1 wrong answer, 2 bad input.
module jacobi_kernel
  implicit none
  double precision, parameter :: pi = 3.14159265358979323846d0
contains

  ! every thread writes the rows it will compute; then the edges
  subroutine initialise(a, b, n)
    integer, intent(in) :: n
    double precision, intent(inout) :: a(0:n + 1, 0:n + 1)
    double precision, intent(inout) :: b(0:n + 1, 0:n + 1)
    integer :: i, j
!$omp parallel do schedule(static) private(j)
    do i = 1, n
      a(0, i) = 0; b(0, i) = 0
      a(n + 1, i) = 0; b(n + 1, i) = 0
      do j = 1, n
        a(j, i) = initial(i, j)
        b(j, i) = a(j, i)
      end do
    end do
!$omp end parallel do
    do j = 0, n + 1
      a(j, 0) = top_edge(j, n); b(j, 0) = a(j, 0)
      a(j, n + 1) = 0; b(j, n + 1) = 0
    end do
  end subroutine initialise

  pure double precision function initial(i, j)
    integer, intent(in) :: i, j
    integer(8) :: i8, j8
    i8 = i
    j8 = j
    initial = dble(mod(i8 * i8 + 3 * j8 * j8 + i8 * j8, 64_8)) / 64
  end function initial

  pure double precision function top_edge(j, n)
    integer, intent(in) :: j, n
    top_edge = sin(pi * dble(j) / dble(n + 1))
  end function top_edge

  ! one sweep from src to dst; orphaned: the team of the enclosing region
  ! shares it, or the one thread that calls it outside any
  subroutine sweep(src, dst, n)
    integer, intent(in) :: n
    double precision, intent(in) :: src(0:n + 1, 0:n + 1)
    double precision, intent(inout) :: dst(0:n + 1, 0:n + 1)
    integer :: i, j
!$omp do schedule(static) private(j)
    do i = 1, n
      do j = 1, n
        dst(j, i) = 0.25d0 * (src(j, i - 1) + src(j, i + 1) + &
                              src(j - 1, i) + src(j + 1, i))
      end do
    end do
!$omp end do
  end subroutine sweep

  ! one sweep as a parallel region of its own (-v sweep): its loop's end
  ! is the region's join, no barrier of its own
  subroutine sweep_region(src, dst, n)
    integer, intent(in) :: n
    double precision, intent(in) :: src(0:n + 1, 0:n + 1)
    double precision, intent(inout) :: dst(0:n + 1, 0:n + 1)
    integer :: i, j
!$omp parallel do schedule(static) private(j)
    do i = 1, n
      do j = 1, n
        dst(j, i) = 0.25d0 * (src(j, i - 1) + src(j, i + 1) + &
                              src(j - 1, i) + src(j + 1, i))
      end do
    end do
!$omp end parallel do
  end subroutine sweep_region

  double precision function residual(g, n)
    integer, intent(in) :: n
    double precision, intent(in) :: g(0:n + 1, 0:n + 1)
    integer :: i, j
    double precision :: s, r
    s = 0
!$omp parallel do schedule(static) private(j, r) reduction(+:s)
    do i = 1, n
      do j = 1, n
        r = g(j, i - 1) + g(j, i + 1) + g(j - 1, i) + g(j + 1, i) - &
            4 * g(j, i)
        s = s + r * r
      end do
    end do
!$omp end parallel do
    residual = sqrt(s)
  end function residual

  subroutine summarise(g, n, checksum, lo, hi)
    integer, intent(in) :: n
    double precision, intent(in) :: g(0:n + 1, 0:n + 1)
    double precision, intent(out) :: checksum, lo, hi
    integer :: i, j
    checksum = 0
    lo = huge(1d0)
    hi = -huge(1d0)
!$omp parallel do schedule(static) private(j) reduction(+:checksum) &
!$omp&  reduction(min:lo) reduction(max:hi)
    do i = 1, n
      do j = 1, n
        checksum = checksum + g(j, i)
        lo = min(lo, g(j, i))
        hi = max(hi, g(j, i))
      end do
    end do
!$omp end parallel do
  end subroutine summarise

  ! the serial run of the same sweeps; counts the points that differ
  integer(8) function differing_points(g, n, k)
    integer, intent(in) :: n, k
    double precision, intent(in) :: g(0:n + 1, 0:n + 1)
    double precision, allocatable :: s(:, :), d(:, :)
    integer :: it
    allocate(s(0:n + 1, 0:n + 1), d(0:n + 1, 0:n + 1))
    call initialise(s, d, n)
    do it = 1, k
      if (mod(it, 2) == 1) then
        call sweep(s, d, n)
      else
        call sweep(d, s, n)
      end if
    end do
    if (mod(k, 2) == 1) then
      differing_points = count(abs(d - g) > 0)
    else
      differing_points = count(abs(s - g) > 0)
    end if
    deallocate(s, d)
  end function differing_points

end module jacobi_kernel

program jacobi_f
  use omp_lib
  use jacobi_kernel
  implicit none
  integer :: n, k, it, argi, nargs
  logical :: one_region, verify, right
  character(len=64) :: flag, value
  double precision, allocatable, target :: a(:, :), b(:, :)
  double precision, pointer :: last(:, :)
  double precision :: start, seconds, r0, r, checksum, lo, hi
  character(len=16) :: version

  n = 256
  k = 100
  one_region = .false.
  verify = .false.
  nargs = command_argument_count()
  argi = 1
  do while (argi <= nargs)
    call get_command_argument(argi, flag)
    value = ''
    if (argi < nargs) call get_command_argument(argi + 1, value)
    select case (trim(flag))
    case ('-c')
      verify = .true.
      argi = argi + 1
      cycle
    case ('-n')
      n = positive(value, 100000, '-n needs a size from 1 to 100000')
    case ('-k')
      k = positive(value, 100000000, '-k needs a positive iteration count')
    case ('-v')
      if (trim(value) == 'sweep') then
        one_region = .false.
      else if (trim(value) == 'region') then
        one_region = .true.
      else
        call usage("-v needs 'sweep' or 'region', not '" // trim(value) &
                   // "'")
      end if
    case default
      call usage("unknown option '" // trim(flag) // "' (usage: " // &
                 "jacobi_f [-n SIZE] [-k ITERATIONS] [-v sweep|region] [-c])")
    end select
    argi = argi + 2
  end do

  allocate(a(0:n + 1, 0:n + 1), b(0:n + 1, 0:n + 1))
  call initialise(a, b, n)
  r0 = residual(a, n)
  start = omp_get_wtime()
  if (one_region) then
!$omp parallel private(it)
    do it = 1, k
      if (mod(it, 2) == 1) then
        call sweep(a, b, n)
      else
        call sweep(b, a, n)
      end if
    end do
!$omp end parallel
  else
    do it = 1, k
      if (mod(it, 2) == 1) then
        call sweep_region(a, b, n)
      else
        call sweep_region(b, a, n)
      end if
    end do
  end if
  seconds = omp_get_wtime() - start
  if (mod(k, 2) == 1) then
    last => b
  else
    last => a
  end if
  r = residual(last, n)
  call summarise(last, n, checksum, lo, hi)

  version = 'fortran-sweep'
  if (one_region) version = 'fortran-region'
  print '(a,a,a,i0,a,i0,a,i0,a,a,a,a,a,a,a,a)', &
        'jacobi: version=', trim(version), ' workers=', &
        omp_get_max_threads(), ' n=', n, ' iterations=', k, ' time=', &
        number('(f0.6)', seconds), ' updates_per_s=', &
        number('(es13.6e2)', dble(n) * dble(n) * dble(k) / seconds), &
        ' residual=', number('(es22.15e2)', r), &
        ' checksum=', number('(es22.15e2)', checksum)
  flush(6)

  right = .true.
  if (.not. (lo >= 0 .and. hi <= 1)) then
    write (0, '(a,es12.4,a,es12.4)') 'jacobi: interior leaves the ' // &
      "boundary's range [0, 1]: min ", lo, ' max ', hi
    right = .false.
  end if
  if (.not. (r <= r0)) then
    write (0, '(a,es12.4,a,es12.4)') 'jacobi: residual ', r, &
      ' is not below the initial ', r0
    right = .false.
  end if
  if (verify) then
    if (differing_points(last, n, k) /= 0) then
      write (0, '(a)') 'jacobi: points differ from the serial run'
      right = .false.
    end if
  end if
  deallocate(a, b)
  if (.not. right) stop 1, quiet=.true.

contains

  ! a number as the C versions print it: no blanks, a leading zero
  function number(form, x) result(text)
    character(len=*), intent(in) :: form
    double precision, intent(in) :: x
    character(len=:), allocatable :: text
    character(len=40) :: buf
    write (buf, form) x
    buf = adjustl(buf)
    if (buf(1:1) == '.') buf = '0' // buf(1:39)
    text = trim(buf)
  end function number

  integer function positive(text, limit, complaint)
    character(len=*), intent(in) :: text, complaint
    integer, intent(in) :: limit
    integer :: status
    read (text, *, iostat=status) positive
    if (status /= 0 .or. positive < 1 .or. positive > limit) &
      call usage(complaint // ", not '" // trim(text) // "'")
  end function positive

  subroutine usage(message)
    character(len=*), intent(in) :: message
    write (0, '(a)') 'jacobi_f: ' // message
    stop 2, quiet=.true.
  end subroutine usage

end program jacobi_f
