! f_io.f90 - unformatted and formatted file I/O of arrays the team
! computes: the run-time library reads and writes the array's memory
! itself (large transfers go straight between the file and the array), so
! pages another node wrote, or that this node may not write yet, must
! still arrive whole (programs corpus).
program f_io
  implicit none
  integer, parameter :: n = 65536
  double precision, allocatable :: a(:), b(:)
  integer :: i, unit_no, ios
  character(len=64) :: name
  double precision :: total

  allocate(a(n), b(n))
!$omp parallel do
  do i = 1, n
    a(i) = dble(i) * 0.5d0
    b(i) = -1.0d0
  end do
!$omp end parallel do

  write(name, '(a,i0,a)') '/tmp/dsm_f_io_', getpid_value(), '.bin'
  open(newunit=unit_no, file=trim(name), access='stream', &
       form='unformatted', status='replace', iostat=ios)
  write(unit_no, iostat=ios) a
  close(unit_no)
  print '(a,i0)', 'result: stream write status ', ios

  open(newunit=unit_no, file=trim(name), access='stream', &
       form='unformatted', status='old', iostat=ios)
  read(unit_no, iostat=ios) b
  close(unit_no, status='delete')
  total = 0
!$omp parallel do reduction(+:total)
  do i = 1, n
    total = total + b(i)
  end do
!$omp end parallel do
  print '(a,i0,a,f0.1)', 'result: stream read status ', ios, ' sum ', total

  ! sequential formatted, a section of the array per record
  open(newunit=unit_no, file=trim(name), form='formatted', &
       status='replace', iostat=ios)
  do i = 1, 64
    write(unit_no, '(8f12.1)') a((i - 1) * 8 + 1:i * 8)
  end do
  close(unit_no)
!$omp parallel do
  do i = 1, n
    b(i) = 0
  end do
!$omp end parallel do
  open(newunit=unit_no, file=trim(name), form='formatted', status='old', &
       iostat=ios)
  do i = 1, 64
    read(unit_no, '(8f12.1)') b((i - 1) * 8 + 1:i * 8)
  end do
  close(unit_no, status='delete')
  total = 0
!$omp parallel do reduction(+:total)
  do i = 1, 512
    total = total + b(i) - a(i)
  end do
!$omp end parallel do
  print '(a,f0.1)', 'result: formatted round trip difference ', total

  ! printed in iteration order, whichever node runs the iteration
!$omp parallel do ordered schedule(static, 1)
  do i = 1, 8
!$omp ordered
    print '(a,i0)', 'result: ordered iteration ', i
!$omp end ordered
  end do
!$omp end parallel do
  print '(a)', 'result: serial code after the loop'

contains
  integer function getpid_value()
    getpid_value = getpid()
  end function getpid_value
end program f_io
