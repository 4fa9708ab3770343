#!/usr/bin/env python3
"""check_module_order.py - the transport's modules depend on each other
one way only.

    check_module_order.py DIR LIB MODULE...

DIR is runtime/transport, LIB the transport's static library, MODULE...
the modules lowest first (transport_modules, runtime/transport/meson.build).
Module m is tp_m.c and tp_m.h.  Fails, naming the files and symbols, when

  - a tp_*.c or tp_*.h file of DIR belongs to no listed module;
  - a module's file includes the header of a module listed after it
    (transport.h, the layer's public header, may be included anywhere);
  - a module's object file in LIB uses a symbol that a module listed after
    it defines: an upward call the includes do not show (a local extern,
    or a public dsm_tp_* function of transport.h).

Layer: tests (suite transport, test module_order).  Needs nm.
"""
import os
import re
import subprocess
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def module_of(filename, rank):
    """The module of tp_<m>.c, tp_<m>.h or tp_<m>.c.o, or None."""
    m = re.fullmatch(r'tp_(\w+?)\.(c|h|c\.o)', filename)
    return m.group(1) if m and m.group(1) in rank else None


def check_includes(src_dir, rank):
    errors = []
    for name in sorted(os.listdir(src_dir)):
        if not re.fullmatch(r'tp_\w+\.[ch]', name):
            continue
        mod = module_of(name, rank)
        if mod is None:
            errors.append(f'{name}: belongs to no module of transport_modules'
                          ' (runtime/transport/meson.build)')
            continue
        with open(os.path.join(src_dir, name), encoding='utf-8') as f:
            text = f.read()
        for inc in INCLUDE.findall(text):
            if not inc.startswith('tp_'):
                continue
            dep = module_of(inc, rank)
            if dep is None:
                errors.append(f'{name} includes {inc}, no module\'s header')
            elif rank[dep] > rank[mod]:
                errors.append(f'{name} includes {inc}: module {dep} comes '
                              f'after {mod} in transport_modules')
    return errors


def read_symbols(lib):
    """{module: (defined symbols, undefined symbols)} from nm of lib."""
    out = subprocess.run(['nm', lib], check=True, capture_output=True,
                         text=True).stdout
    objs = {}
    cur = None
    for line in out.splitlines():
        if line.endswith(':') and ' ' not in line:
            cur = objs.setdefault(line[:-1], (set(), set()))
            continue
        parts = line.split()
        if cur is None or len(parts) < 2:
            continue
        if len(parts) == 2 and parts[0] == 'U':
            cur[1].add(parts[1])
        elif len(parts) == 3 and parts[1] in 'TDBRCVW':
            cur[0].add(parts[2])
    return objs


def check_symbols(lib, rank):
    errors = []
    objs = read_symbols(lib)
    owner = {}
    mods = {}
    for obj, (defined, undefined) in objs.items():
        mod = module_of(os.path.basename(obj), rank)
        if mod is None:
            errors.append(f'{lib}: {obj} belongs to no module')
            continue
        mods[mod] = undefined
        for sym in defined:
            owner[sym] = mod
    for mod in rank:
        if mod not in mods:
            errors.append(f'{lib}: no object file of module {mod}')
    for mod, undefined in sorted(mods.items(), key=lambda kv: rank[kv[0]]):
        ups = {}
        for sym in undefined:
            dep = owner.get(sym)
            if dep is not None and rank[dep] > rank[mod]:
                ups.setdefault(dep, []).append(sym)
        for dep, syms in sorted(ups.items()):
            errors.append(f'tp_{mod}.c uses {", ".join(sorted(syms))} of '
                          f'tp_{dep}.c: module {dep} comes after {mod} in '
                          'transport_modules')
    return errors


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__)
    src_dir, lib, modules = argv[1], argv[2], argv[3:]
    rank = {m: i for i, m in enumerate(modules)}
    errors = check_includes(src_dir, rank) + check_symbols(lib, rank)
    for e in errors:
        print('module order: ' + e)
    if errors:
        print(f'{len(errors)} upward or unplaced dependencies; the order, '
              'lowest first: ' + ' '.join(modules))
        return 1
    print(f'{len(modules)} transport modules, every dependency downward')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
