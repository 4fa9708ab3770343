! f_reductions.f90 - reductions on every intrinsic operator and procedure
! of Fortran's reduction clause (+, *, -, .and., .or., .eqv., .neqv., max,
! min, iand, ior, ieor) over integer(4), integer(8), real(4), real(8),
! complex and logical variables, scalars and arrays, on parallel do loops
! and on a parallel region, each checked against the serial loop.  Values
! are chosen so that every order of the combination gives the same bits
! (programs corpus, issue 21).
program f_reductions
  implicit none
  integer, parameter :: n = 4099
  integer :: i, errors
  integer :: isum, iprod, idiff, imax, imin, iand_v, ior_v, ieor_v
  integer(8) :: lsum, lmax
  real :: rsum, rmax
  double precision :: dsum, dprod, dmin
  complex(8) :: csum, cprod
  logical :: land, lor, leqv, lneqv
  integer :: hist(16), whole(16)
  double precision :: col(8), want_col(8)

  errors = 0
  isum = 0; iprod = 1; idiff = 0; imax = -huge(1); imin = huge(1)
  iand_v = not(0); ior_v = 0; ieor_v = 0
  lsum = 0; lmax = -huge(1_8)
  rsum = 0; rmax = -huge(1.0)
  dsum = 0; dprod = 1; dmin = huge(1d0)
  csum = (0d0, 0d0); cprod = (1d0, 0d0)
  land = .true.; lor = .false.; leqv = .true.; lneqv = .false.
!$omp parallel do schedule(dynamic, 64) &
!$omp&  reduction(+:isum, lsum, rsum, dsum, csum) reduction(-:idiff) &
!$omp&  reduction(max:imax, lmax, rmax) reduction(min:imin, dmin) &
!$omp&  reduction(iand:iand_v) reduction(ior:ior_v) reduction(ieor:ieor_v) &
!$omp&  reduction(.and.:land) reduction(.or.:lor) &
!$omp&  reduction(.eqv.:leqv) reduction(.neqv.:lneqv)
  do i = 1, n
    isum = isum + i
    idiff = idiff - i
    lsum = lsum + int(i, 8) * 1000000_8
    rsum = rsum + real(mod(i, 8))
    dsum = dsum + dble(i) / 4
    csum = csum + cmplx(dble(mod(i, 5)), dble(mod(i, 3)), 8)
    imax = max(imax, mod(i * 7919, 10007))
    lmax = max(lmax, int(mod(i * 104729, 1000003), 8))
    rmax = max(rmax, real(mod(i * 31, 977)))
    imin = min(imin, mod(i * 7919, 10007) + 5)
    dmin = min(dmin, dble(mod(i * 13, 4001)) - 0.5d0)
    iand_v = iand(iand_v, ior(i, 1024))
    ior_v = ior(ior_v, ishft(1, mod(i, 30)))
    ieor_v = ieor(ieor_v, i)
    land = land .and. (i <= n)
    lor = lor .or. (i == 2049)
    leqv = leqv .eqv. (mod(i, 2) == 0)
    lneqv = lneqv .neqv. (mod(i, 3) == 0)
  end do
!$omp end parallel do

  ! products: few factors, exact in binary
!$omp parallel do reduction(*:iprod, dprod, cprod) schedule(static, 1)
  do i = 1, 20
    if (mod(i, 4) == 0) iprod = iprod * 2
    dprod = dprod * 1.25d0
    if (mod(i, 5) == 0) cprod = cprod * (0d0, 1d0)
  end do
!$omp end parallel do

  ! arrays: a histogram and column sums, on a parallel region's loop
  hist = 0
  col = 0
!$omp parallel reduction(+:hist, col)
!$omp do schedule(guided)
  do i = 1, n
    hist(mod(i * 7, 16) + 1) = hist(mod(i * 7, 16) + 1) + 1
    col(mod(i, 8) + 1) = col(mod(i, 8) + 1) + dble(i)
  end do
!$omp end do
!$omp end parallel

  call serial_check()

  print '(a,i0,1x,i0,1x,i0,1x,f0.1,1x,f0.2)', 'result: sums ', isum, idiff, &
        lsum, rsum, dsum
  print '(a,2f10.1)', 'result: complex sum ', csum
  print '(a,i0,1x,f0.6,2(1x,i0))', 'result: products ', iprod, dprod, &
        nint(real(cprod)), nint(aimag(cprod))
  print '(a,i0,1x,i0,1x,f0.1,1x,i0,1x,f0.1)', 'result: max min ', imax, &
        lmax, rmax, imin, dmin
  print '(a,i0,1x,i0,1x,i0)', 'result: bits ', iand_v, ior_v, ieor_v
  print '(a,4l2)', 'result: logical', land, lor, leqv, lneqv
  print '(a,16(1x,i0))', 'result: histogram', hist
  print '(a,8(1x,f0.1))', 'result: columns', col
  if (errors /= 0) then
    print '(a,i0)', 'f_reductions errors: ', errors
    stop 1
  end if

contains

  subroutine serial_check()
    integer :: m, s_isum, s_imax, s_imin, s_and, s_or, s_eor
    integer(8) :: s_lsum
    double precision :: s_dsum
    logical :: s_eqv, s_neqv
    s_isum = 0; s_lsum = 0; s_dsum = 0; s_imax = -huge(1); s_imin = huge(1)
    s_and = not(0); s_or = 0; s_eor = 0; s_eqv = .true.; s_neqv = .false.
    whole = 0
    want_col = 0
    do m = 1, n
      s_isum = s_isum + m
      s_lsum = s_lsum + int(m, 8) * 1000000_8
      s_dsum = s_dsum + dble(m) / 4
      s_imax = max(s_imax, mod(m * 7919, 10007))
      s_imin = min(s_imin, mod(m * 7919, 10007) + 5)
      s_and = iand(s_and, ior(m, 1024))
      s_or = ior(s_or, ishft(1, mod(m, 30)))
      s_eor = ieor(s_eor, m)
      s_eqv = s_eqv .eqv. (mod(m, 2) == 0)
      s_neqv = s_neqv .neqv. (mod(m, 3) == 0)
      whole(mod(m * 7, 16) + 1) = whole(mod(m * 7, 16) + 1) + 1
      want_col(mod(m, 8) + 1) = want_col(mod(m, 8) + 1) + dble(m)
    end do
    if (isum /= s_isum .or. idiff /= -s_isum .or. lsum /= s_lsum) &
      errors = errors + 1
    if (abs(dsum - s_dsum) > 0d0) errors = errors + 1
    if (imax /= s_imax .or. imin /= s_imin) errors = errors + 1
    if (iand_v /= s_and .or. ior_v /= s_or .or. ieor_v /= s_eor) &
      errors = errors + 1
    if ((leqv .neqv. s_eqv) .or. (lneqv .neqv. s_neqv) .or. .not. land &
        .or. .not. lor) errors = errors + 1
    if (iprod /= 32 .or. abs(dprod - 1.25d0**20) > 0d0) errors = errors + 1
    if (any(hist /= whole) .or. any(abs(col - want_col) > 0d0)) &
      errors = errors + 1
  end subroutine serial_check

end program f_reductions
