/*
 * io_shared.c - input and output through buffers the team shares, as
 * programs read their data and write their results: a file read in chunks
 * with fread into a global buffer that a parallel loop then reads, read()
 * and pread() into a heap array the other threads wrote before, write()
 * and fwrite() of an array computed in parallel and read back, and stat()
 * into a shared array of structures from inside a region.  The kernel
 * copies these bytes itself: a page the calling node holds no copy of, or
 * may not write yet, must still arrive whole (programs corpus).
 */
#include <fcntl.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHUNK 65536
#define VALUES 100000
#define THREADS_MAX 64

static unsigned char chunk[CHUNK];
static struct stat seen[THREADS_MAX];

static unsigned char byte_at(long i) { return (unsigned char)(i * 7 + i / 251); }

/* A scratch file of the given bytes; its name in name. */
static void make_file(char *name, size_t len)
{
    strcpy(name, "/tmp/dsm_io_shared_XXXXXX");
    int fd = mkstemp(name);
    if (fd < 0) {
        perror("mkstemp");
        exit(1);
    }
    FILE *f = fdopen(fd, "wb");
    for (size_t i = 0; i < len; i++)
        fputc(byte_at((long)i), f);
    fclose(f);
}

int main(void)
{
    int failures = 0;
    char input[64], output[64];
    const size_t input_len = 5 * CHUNK + 12345;
    make_file(input, input_len);

    /* 1. chunks through a global buffer; the loop only reads it */
    FILE *in = fopen(input, "rb");
    long total = 0, bytes = 0;
    size_t got;
    while ((got = fread(chunk, 1, CHUNK, in)) > 0) {
        long s = 0;
#pragma omp parallel for reduction(+ : s)
        for (size_t i = 0; i < got; i++)
            s += chunk[i] * (long)(i % 13 + 1);
        total += s;
        bytes += (long)got;
    }
    failures += ferror(in) != 0;
    fclose(in);
    printf("result: fread chunks %ld bytes weighted sum %ld\n", bytes, total);

    /* 2. read() and pread() into an array every thread wrote */
    unsigned char *heap = malloc(input_len);
#pragma omp parallel for
    for (size_t i = 0; i < input_len; i++)
        heap[i] = 0xff;
    int fd = open(input, O_RDONLY);
    ssize_t r = read(fd, heap, input_len);
    ssize_t r2 = pread(fd, heap + 100, 4000, 100);
    close(fd);
    long mismatches = 0;
#pragma omp parallel for reduction(+ : mismatches)
    for (size_t i = 0; i < input_len; i++)
        mismatches += heap[i] != byte_at((long)i);
    printf("result: read %zd pread %zd mismatches %ld\n", r, r2, mismatches);

    /* 3. write() and fwrite() an array computed in parallel, then back */
    double *values = malloc(VALUES * sizeof *values);
#pragma omp parallel for
    for (long i = 0; i < VALUES; i++)
        values[i] = 0.5 * (double)i;
    strcpy(output, "/tmp/dsm_io_shared_out_XXXXXX");
    int out = mkstemp(output);
    ssize_t w = write(out, values, VALUES / 2 * sizeof *values);
    close(out);
    FILE *append = fopen(output, "ab");
    size_t w2 = fwrite(values + VALUES / 2, sizeof *values, VALUES / 2,
                       append);
    fclose(append);
#pragma omp parallel for
    for (long i = 0; i < VALUES; i++)
        values[i] = -1.0;
    FILE *back = fopen(output, "rb");
    size_t r3 = fread(values, sizeof *values, VALUES, back);
    fclose(back);
    double sum = 0.0;
#pragma omp parallel for reduction(+ : sum)
    for (long i = 0; i < VALUES; i++)
        sum += values[i];
    printf("result: write %zd fwrite %zu fread %zu sum %.1f\n", w, w2, r3,
           sum);

    /* 4. stat() into a shared array, one entry per thread */
    int threads = 0, directories = 0;
#pragma omp parallel reduction(+ : directories)
    {
#pragma omp single
        threads = omp_get_num_threads();
        int t = omp_get_thread_num();
        if (t < THREADS_MAX && stat("/", &seen[t]) == 0 &&
            S_ISDIR(seen[t].st_mode))
            directories++;
    }
    printf("result: stat directories %d of %d\n", directories,
           threads < THREADS_MAX ? threads : THREADS_MAX);

    unlink(input);
    unlink(output);
    free(heap);
    free(values);
    return failures;
}
