/*
 * cxx_new.cpp - linked into every program dsmc++ links (libdsmomp_cxx.a,
 * whole): the program's replacement of the global allocation functions
 * (every form of operator new and delete: plain, array, nothrow, sized,
 * aligned) and of the allocation of exception objects.
 *
 * Replacement, not -Wl,--wrap: operator new is a replaceable function,
 * and a definition in the executable is exported and takes precedence
 * over libstdc++'s for every caller in the process, libstdc++.so's own
 * code included.  Much of std::string, the streams and other explicitly
 * instantiated templates runs out of line in libstdc++.so; --wrap would
 * redirect only the calls compiled into the program, and a string grown
 * by libstdc++'s code would land in one node's private heap
 * (design.md, "C++ programs", has the count).
 *
 * The functions call malloc, free and posix_memalign, which dsmc++ wraps
 * like dsmcc (compiler-shim/shim_heap.c): the sharable heap from the
 * program's first constructor (cxx_start.c) until the job shuts down,
 * libc before and after; delete decides by address.
 *
 * The operators are weak definitions: a program that defines its own
 * keeps them.
 *
 * Exception objects (__cxa_allocate_exception, also replaceable: libstdc++
 * calls it through its PLT) come from the same heap, so a
 * std::exception_ptr taken on one node can be rethrown on another.  The
 * object follows libstdc++'s header (the Itanium ABI's __cxa_exception
 * with a reference count in front: 128 bytes on x86-64), as libstdc++
 * lays it out; libstdc++'s own functions serve when the sharable heap is
 * closed or full (its emergency pool), and free what they allocated.
 *
 * Layer: compiler-shim, program side.  Any thread, before, during and
 * after the job.
 */
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <new>

#define CXX_EXPORT __attribute__((visibility("default")))
// Weak: a program that replaces operator new itself keeps its own (which
// gets the sharable heap when it calls malloc, as most do).
#define CXX_REPLACEABLE __attribute__((visibility("default"), weak))

namespace {

void *allocate(std::size_t size)
{
    if (size == 0)
        size = 1;
    for (;;) {
        if (void *p = std::malloc(size))
            return p;
        std::new_handler handler = std::get_new_handler();
        if (!handler)
            throw std::bad_alloc();
        handler();
    }
}

void *allocate_aligned(std::size_t size, std::align_val_t align)
{
    std::size_t alignment = static_cast<std::size_t>(align);
    if (alignment < sizeof(void *))
        alignment = sizeof(void *);
    if (size == 0)
        size = 1;
    for (;;) {
        void *p = nullptr;
        if (posix_memalign(&p, alignment, size) == 0)
            return p;
        std::new_handler handler = std::get_new_handler();
        if (!handler)
            throw std::bad_alloc();
        handler();
    }
}

template <typename F> void *no_throw(F f) noexcept
{
    try {
        return f();
    } catch (...) {
        return nullptr;
    }
}

} // namespace

CXX_REPLACEABLE void *operator new(std::size_t size) { return allocate(size); }
CXX_REPLACEABLE void *operator new[](std::size_t size) { return allocate(size); }
CXX_REPLACEABLE void *operator new(std::size_t size, const std::nothrow_t &) noexcept
{
    return no_throw([=] { return allocate(size); });
}
CXX_REPLACEABLE void *operator new[](std::size_t size, const std::nothrow_t &) noexcept
{
    return no_throw([=] { return allocate(size); });
}
CXX_REPLACEABLE void *operator new(std::size_t size, std::align_val_t align)
{
    return allocate_aligned(size, align);
}
CXX_REPLACEABLE void *operator new[](std::size_t size, std::align_val_t align)
{
    return allocate_aligned(size, align);
}
CXX_REPLACEABLE void *operator new(std::size_t size, std::align_val_t align,
                              const std::nothrow_t &) noexcept
{
    return no_throw([=] { return allocate_aligned(size, align); });
}
CXX_REPLACEABLE void *operator new[](std::size_t size, std::align_val_t align,
                                const std::nothrow_t &) noexcept
{
    return no_throw([=] { return allocate_aligned(size, align); });
}

CXX_REPLACEABLE void operator delete(void *p) noexcept { std::free(p); }
CXX_REPLACEABLE void operator delete[](void *p) noexcept { std::free(p); }
CXX_REPLACEABLE void operator delete(void *p, const std::nothrow_t &) noexcept
{
    std::free(p);
}
CXX_REPLACEABLE void operator delete[](void *p, const std::nothrow_t &) noexcept
{
    std::free(p);
}
CXX_REPLACEABLE void operator delete(void *p, std::size_t) noexcept { std::free(p); }
CXX_REPLACEABLE void operator delete[](void *p, std::size_t) noexcept { std::free(p); }
CXX_REPLACEABLE void operator delete(void *p, std::align_val_t) noexcept
{
    std::free(p);
}
CXX_REPLACEABLE void operator delete[](void *p, std::align_val_t) noexcept
{
    std::free(p);
}
CXX_REPLACEABLE void operator delete(void *p, std::size_t, std::align_val_t) noexcept
{
    std::free(p);
}
CXX_REPLACEABLE void operator delete[](void *p, std::size_t,
                                  std::align_val_t) noexcept
{
    std::free(p);
}
CXX_REPLACEABLE void operator delete(void *p, std::align_val_t,
                                const std::nothrow_t &) noexcept
{
    std::free(p);
}
CXX_REPLACEABLE void operator delete[](void *p, std::align_val_t,
                                  const std::nothrow_t &) noexcept
{
    std::free(p);
}

/* ---- exception objects ---------------------------------------------------- */

extern "C" {
int __dsm_cxx_sharable_block(const void *ptr);
CXX_EXPORT void *__cxa_allocate_exception(std::size_t thrown_size) noexcept;
CXX_EXPORT void __cxa_free_exception(void *thrown_object) noexcept;
}

namespace {

// sizeof(__cxa_refcounted_exception) in libstdc++ on x86-64: the object
// follows it, 16-byte aligned.
constexpr std::size_t exception_header = 128;

// Looked up at each use (rare: the sharable heap is closed or full), not
// kept in a function-local static, whose guard would come back here.
template <typename Fn> Fn libstdcxx(const char *name)
{
    void *fn = dlsym(RTLD_NEXT, name);
    if (!fn)
        std::abort();
    return reinterpret_cast<Fn>(fn);
}

} // namespace

void *__cxa_allocate_exception(std::size_t thrown_size) noexcept
{
    if (thrown_size <= SIZE_MAX - exception_header) {
        char *block = static_cast<char *>(
            std::malloc(exception_header + thrown_size));
        if (block && __dsm_cxx_sharable_block(block)) {
            std::memset(block, 0, exception_header);
            return block + exception_header;
        }
        std::free(block);       /* libc's (the job is not up): its own */
    }
    using alloc_t = void *(*)(std::size_t);
    return libstdcxx<alloc_t>("__cxa_allocate_exception")(thrown_size);
}

void __cxa_free_exception(void *thrown_object) noexcept
{
    char *block = static_cast<char *>(thrown_object) - exception_header;
    if (__dsm_cxx_sharable_block(block)) {
        std::free(block);
        return;
    }
    using free_t = void (*)(void *);
    libstdcxx<free_t>("__cxa_free_exception")(thrown_object);
}
