/*
 * spmv_cxx.cpp - the SpMV kernel of spmv_omp.c written as a C++
 * programmer would: the matrix is a class over std::vector, x and y are
 * std::vector<double>, the two strategies (rows: a parallel loop over
 * rows with a dynamic schedule; nonzeros: each thread the same block of
 * rows holding about 1/T of the nonzeros) are member functions, and
 * nothing says where memory comes from: dsmc++ makes what std::vector
 * allocates sharable.  It solves the same problem as the C versions and
 * prints the same result line (version cxx-rows or cxx-nonzeros), which
 * scripts/run-apps.sh compares with them.  The matrix is generated or
 * read by the C code they share (spmv_problem.c) and copied into the
 * class.
 *
 * Usage: spmv_cxx [-g lap7|lap27|band] [-s SIZE] [-w HALF_BAND]
 *                 [-f FILE.mtx] [-k ITERATIONS] [-v rows|nonzeros]
 * Exit status: 0 right, 1 wrong answer, 2 bad input.
 */
#include <omp.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

extern "C" {
#include "app_args.h"
#include "spmv_problem.h"
}

namespace {

class sparse_matrix {
  public:
    sparse_matrix(const char *program, const spmv_options &options)
    {
        csr c;
        spmv_matrix(program, &options, std::malloc, &c);
        rows_ = c.rows;
        cols_ = c.cols;
        row_start_.assign(c.row_start, c.row_start + c.rows + 1);
        col_.assign(c.col, c.col + c.nonzeros);
        val_.assign(c.val, c.val + c.nonzeros);
        std::free(c.row_start);
        std::free(c.col);
        std::free(c.val);
    }

    long rows() const { return rows_; }
    long cols() const { return cols_; }

    // Row i of A x, summed in storage order (the C versions' order).
    double row_dot(long i, const std::vector<double> &x) const
    {
        double sum = 0.0;
        for (long e = row_start_[i]; e < row_start_[i + 1]; e++)
            sum += val_[e] * x[col_[e]];
        return sum;
    }

    // The C code's view, for splitting and for the check.
    csr view() const
    {
        return csr{rows_, cols_, (long)val_.size(),
                   const_cast<long *>(row_start_.data()),
                   const_cast<long *>(col_.data()),
                   const_cast<double *>(val_.data())};
    }

    // This thread's block of rows under the nonzeros strategy.
    void my_rows(long &first, long &end) const
    {
        csr v = view();
        long t = omp_get_thread_num(), nt = omp_get_num_threads();
        first = csr_split_by_nonzeros(&v, t, nt);
        end = csr_split_by_nonzeros(&v, t + 1, nt);
    }

    void multiply_by_rows(const std::vector<double> &x,
                          std::vector<double> &y) const
    {
#pragma omp parallel for schedule(dynamic, 256)
        for (long i = 0; i < rows_; i++)
            y[i] = row_dot(i, x);
    }

    void multiply_by_nonzeros(const std::vector<double> &x,
                              std::vector<double> &y) const
    {
#pragma omp parallel
        {
            long first, end;
            my_rows(first, end);
            for (long i = first; i < end; i++)
                y[i] = row_dot(i, x);
        }
    }

  private:
    long rows_ = 0, cols_ = 0;
    std::vector<long> row_start_, col_;
    std::vector<double> val_;
};

// x and y first written by the threads that use them, as in spmv_omp.c.
void initialise(const sparse_matrix &a, std::vector<double> &x,
                std::vector<double> &y, bool by_nonzeros)
{
    if (by_nonzeros) {
#pragma omp parallel
        {
            long first, end;
            a.my_rows(first, end);
            for (long i = first; i < end; i++)
                y[i] = 0.0;
            for (long j = first; j < end && j < a.cols(); j++)
                x[j] = spmv_x_entry(j);
        }
    } else {
#pragma omp parallel for schedule(dynamic, 256)
        for (long i = 0; i < a.rows(); i++) {
            y[i] = 0.0;
            if (i < a.cols())
                x[i] = spmv_x_entry(i);
        }
    }
    for (long j = a.rows(); j < a.cols(); j++)
        x[j] = spmv_x_entry(j);
}

} // namespace

int main(int argc, char **argv)
{
    spmv_options options;
    spmv_parse(argc, argv, true, &options);
    const sparse_matrix a(argv[0], options);
    std::vector<double> x(a.cols()), y(a.rows());
    initialise(a, x, y, options.by_nonzeros);

    double start = omp_get_wtime();
    for (long it = 0; it < options.iterations; it++) {
        if (options.by_nonzeros)
            a.multiply_by_nonzeros(x, y);
        else
            a.multiply_by_rows(x, y);
    }
    double seconds = omp_get_wtime() - start;

    csr v = a.view();
    bool right = spmv_report(options.by_nonzeros ? "cxx-nonzeros" : "cxx-rows",
                             omp_get_max_threads(), &options, &v, y.data(),
                             seconds);
    return right ? 0 : APP_EXIT_WRONG;
}
