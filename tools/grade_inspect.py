# SPDX-License-Identifier: MIT
"""What tools/grade checks in a student's compiled code before any of it runs.

In the spirit of CS:APP's datalab checker, adapted to C objects. Each student translation unit is
compiled alone (in the sandbox) into its object, preprocessed source (.i), assembly (.s) and the
compiler's include tree (gcc -H); the sanitizer build is compiled from the same preprocessed source,
so both builds come from one token stream. Then, outside the sandbox:

- defined global symbols: only the chapter's exercise functions (declared in its cf_chNN.h, not
  defined by the library); anything else (a variable, libc's _exit, libcheck's srunner_run_all)
  must be static;
- undefined symbols: from an allow-list (`Allowed`): the globals of the library archive libcf.a,
  the functions declared in the chapter headers cf_chKK.h for K <= N, the math library, and a
  short list of libc (allocation, memory and string functions, formatted printing);
- no constructor, destructor or .init_array/.fini_array entry (only the sanitizer's own one in
  the sanitizer build), no indirect function (ifunc), no section outside the usual ones;
- no inline assembly (GCC marks it #APP in the .s), no stack or control-flow builtins
  (__builtin_frame_address, __builtin_longjmp, ...);
- #include only the course's headers (lib/include/cf/*.h) and the standard C headers of
  SYSTEM_HEADERS, read from the real include tree (gcc -H), not from line markers.

Every function takes bytes or text the sandbox wrote and never trusts it: a malformed object is a
refusal, not a crash. A refusal is a list of one-line reasons naming the file and the symbol.
"""
import os.path
import re
import struct
import subprocess
from pathlib import Path

# Standard C headers a student may include directly (the course's own are lib/include/cf/*.h).
SYSTEM_HEADERS = frozenset("""
assert.h complex.h float.h inttypes.h iso646.h limits.h math.h stdalign.h stdarg.h stdbool.h
stddef.h stdint.h stdio.h stdlib.h string.h tgmath.h
""".split())

# The libc an exercise may call. Formatted printing goes to stdout/stderr: nothing opens, reads
# or closes a file, starts a process, ends one or changes signals. GCC turns printf("...\n") into
# puts and fprintf(f, "...") into fwrite/fputs, so those are here too; the *_chk forms are what
# _FORTIFY_SOURCE makes of the same calls.
LIBC = frozenset("""
malloc calloc realloc free aligned_alloc
memcpy memmove memset memcmp memchr strlen strnlen strcmp strncmp strchr strrchr strstr
strcpy strncpy strcat strncat
printf fprintf vprintf vfprintf snprintf vsnprintf sprintf vsprintf puts fputs putchar fputc putc
fwrite fflush stdout stderr
qsort bsearch abs labs llabs div ldiv lldiv
__assert_fail __stack_chk_fail _GLOBAL_OFFSET_TABLE_
__printf_chk __fprintf_chk __vprintf_chk __vfprintf_chk __snprintf_chk __vsnprintf_chk
__sprintf_chk __vsprintf_chk __memcpy_chk __memmove_chk __memset_chk __strcpy_chk __strncpy_chk
__strcat_chk __strncat_chk
""".split())

# libcf globals an exercise may not call: the stub hook (test plumbing: it decides how a reached
# stub fails a test) and the library's file readers and writers (an exercise computes; it never
# opens a file, and where the sandbox has no mount namespace these would reach every file the
# sandbox user can read or write)
LIBCF_DENIED = frozenset(["cf_set_todo_hook", "cf_scene_load", "cf_lcp_read_siconos",
                          "cf_lcp_write_siconos", "cf_fc_read_siconos", "cf_fc_write_siconos"])

SANITIZER_PREFIXES = ("__asan_", "__ubsan_", "__sanitizer_", "__lsan_")

# stack walking and non-local jumps: the ways to reach into the harness's frames
DENIED_BUILTINS = ("__builtin_frame_address", "__builtin_return_address",
                   "__builtin_extract_return_addr", "__builtin_frob_return_addr",
                   "__builtin_setjmp", "__builtin_longjmp", "__builtin_apply",
                   "__builtin_apply_args", "__builtin_return", "__builtin_eh_return",
                   "__builtin_unwind_init", "__builtin_dwarf_cfa", "__builtin_stack_save",
                   "__builtin_stack_restore")
BUILTIN_RE = re.compile(r"\b(" + "|".join(DENIED_BUILTINS) + r")\b")

# sections a C translation unit normally has; anything else (.init, .ctors, .preinit_array, a
# section named by the student) is refused
SECTION_RE = re.compile(r"^(|\.text(\..*)?|\.data(\..*)?|\.rodata(\..*)?|\.bss(\..*)?|"
                        r"\.tdata(\..*)?|\.tbss(\..*)?|\.rela\..*|\.debug_\w+|\.comment|"
                        r"\.note\.GNU-stack|\.note\.gnu\.property|\.eh_frame|\.group|"
                        r"\.symtab|\.strtab|\.shstrtab)$")
SANITIZER_ARRAYS = {".init_array.00099": "_sub_I_00099_", ".fini_array.00099": "_sub_D_00099_"}

SHT_SYMTAB, SHT_RELA, SHT_DYNSYM = 2, 4, 11
SHT_INIT_ARRAY, SHT_FINI_ARRAY, SHT_PREINIT_ARRAY = 14, 15, 16
STB_LOCAL, STB_GLOBAL, STB_WEAK, STB_GNU_UNIQUE = 0, 1, 2, 10
STT_FUNC, STT_SECTION, STT_GNU_IFUNC = 2, 3, 10
SHN_UNDEF, SHN_COMMON = 0, 0xfff2


class BadObject(Exception):
    """Not an ELF file this checker understands."""


class Elf:
    """The parts of an ELF64 little-endian file the checks need: sections, symbols (.symtab or
    .dynsym) and RELA relocations. Every offset is bounds-checked."""

    def __init__(self, data, want_type=None):
        self.data = data
        if len(data) < 64 or data[:4] != b"\x7fELF":
            raise BadObject("not an ELF file")
        if data[4] != 2 or data[5] != 1:
            raise BadObject("not a 64-bit little-endian ELF file")
        (e_type, _mach, _ver, _entry, _phoff, shoff, _flags, _ehsize, _phentsize, _phnum,
         shentsize, shnum, shstrndx) = struct.unpack_from("<HHIQQQIHHHHHH", data, 16)
        if want_type is not None and e_type != want_type:
            raise BadObject(f"ELF type {e_type}, expected {want_type}")
        if shentsize != 64 or shnum == 0 or shoff + 64 * shnum > len(data) or shstrndx >= shnum:
            raise BadObject("bad section header table")
        raw = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + 64 * k) for k in range(shnum)]
        self.sections = []
        str_off, str_size = raw[shstrndx][4], raw[shstrndx][5]
        for (name, typ, flags, _addr, off, size, link, info, _align, entsize) in raw:
            if typ != 8 and off + size > len(data):  # 8 = NOBITS
                raise BadObject("a section lies outside the file")
            self.sections.append(dict(name=self._str(str_off, str_size, name), type=typ,
                                      flags=flags, offset=off, size=size, link=link, info=info,
                                      entsize=entsize))
        self.symbols = []
        tabs = [s for s in self.sections if s["type"] in (SHT_SYMTAB, SHT_DYNSYM)]
        if tabs:
            tab = tabs[0]
            if tab["link"] >= len(self.sections):
                raise BadObject("bad symbol string table")
            strs = self.sections[tab["link"]]
            for k in range(tab["size"] // 24):
                name, info, _other, shndx, value, size = struct.unpack_from(
                    "<IBBHQQ", data, tab["offset"] + 24 * k)
                self.symbols.append(dict(name=self._str(strs["offset"], strs["size"], name),
                                         bind=info >> 4, type=info & 15, shndx=shndx,
                                         value=value, size=size))

    def _str(self, off, size, k):
        if k >= size:
            raise BadObject("bad string offset")
        end = self.data.find(b"\0", off + k, off + size)
        if end < 0:
            raise BadObject("unterminated string")
        return self.data[off + k:end].decode("utf-8", "replace")

    def relocations(self, target):
        """(offset, symbol index, addend) of the RELA section applying to section index target."""
        out = []
        for s in self.sections:
            if s["type"] == SHT_RELA and s["info"] == target:
                for k in range(s["size"] // 24):
                    off, info, addend = struct.unpack_from("<QQq", self.data, s["offset"] + 24 * k)
                    out.append((off, info >> 32, addend))
        return out


def archive_members(data):
    """(name, bytes) of each member of a System V / GNU ar archive (libcf.a is one)."""
    if not data.startswith(b"!<arch>\n"):
        raise BadObject("not an ar archive")
    pos, longnames, out = 8, b"", []
    while pos + 60 <= len(data):
        head = data[pos:pos + 60]
        name, size = head[:16].decode().strip(), int(head[48:58].decode().strip() or 0)
        body = data[pos + 60:pos + 60 + size]
        if name == "//":
            longnames = body
        elif name not in ("/", "/SYM64/"):
            if name.startswith("/") and name[1:].isdigit():
                k = int(name[1:])
                name = longnames[k:longnames.index(b"/\n", k)].decode()
            out.append((name.rstrip("/"), body))
        pos += 60 + size + (size & 1)
    return out


def defined_functions(data):
    """Global functions an object defines (for the course's own stubs and library)."""
    elf = Elf(data)
    return {s["name"] for s in elf.symbols if s["bind"] in (STB_GLOBAL, STB_WEAK)
            and s["shndx"] != SHN_UNDEF and s["name"]}


# ------------------------------------------------------------------------------------------
# the allow-list, derived from the course and the system at prepare time (trusted input)

def library_globals(archive_path):
    names = set()
    for _name, body in archive_members(Path(archive_path).read_bytes()):
        names |= defined_functions(body)
    return names


def declared_functions(cc, header, include_dir):
    """Functions declared in one header, from the compiler itself (-aux-info lists every
    declaration with its file and line)."""
    aux = Path(header).with_suffix(".aux-info")
    r = subprocess.run(cc + ["-std=c17", f"-I{include_dir}", "-aux-info", str(aux),
                             "-fsyntax-only", "-x", "c", str(header)],
                       capture_output=True, text=True)
    try:
        if r.returncode != 0:
            raise RuntimeError(f"{header}: {r.stderr.strip()[:500]}")
        out = set()
        for line in aux.read_text().splitlines():
            m = re.match(r"/\* (.*):\d+:\w+ \*/ (.*)$", line)
            if m and Path(m.group(1)) == Path(header):
                f = re.search(r"(\w+) \((?!\*)", m.group(2))
                if f:
                    out.add(f.group(1))
        return out
    finally:
        aux.unlink(missing_ok=True)


def math_functions(cc):
    """Everything the shared math library exports (it reads and writes no file)."""
    r = subprocess.run(cc + ["-print-file-name=libm.so.6"], capture_output=True, text=True)
    path = Path(r.stdout.strip())
    if r.returncode != 0 or not path.is_absolute() or not path.is_file():
        raise RuntimeError("cannot find libm.so.6 to list the math functions")
    elf = Elf(path.read_bytes())
    return {s["name"] for s in elf.symbols if s["shndx"] != SHN_UNDEF and s["name"]
            and s["bind"] in (STB_GLOBAL, STB_WEAK)}


def system_include_dirs(cc):
    r = subprocess.run(cc + ["-E", "-Wp,-v", "-x", "c", "/dev/null", "-o", "/dev/null"],
                       capture_output=True, text=True)
    dirs, inside = [], False
    for line in r.stderr.splitlines():
        if line.startswith("#include <...> search starts here"):
            inside = True
        elif line.startswith("End of search list"):
            break
        elif inside and line.startswith(" "):
            dirs.append(os.path.normpath(line.strip()))
    if not dirs:
        raise RuntimeError("cannot find the compiler's system include folders")
    return dirs


# ------------------------------------------------------------------------------------------
# the checks (on what the sandbox wrote: untrusted)

def check_object(data, src, own, allowed, sanitizer=False):
    """Problems of one compiled translation unit (a list of one-line strings): it may define
    only functions of own (its chapter's exercise functions) and use only names in allowed."""
    try:
        elf = Elf(data, want_type=1)
    except (BadObject, struct.error, UnicodeDecodeError, ValueError) as e:
        return [f"{src}: the compiled object cannot be read ({e})"]
    problems = []
    for k, s in enumerate(elf.sections):
        name = s["name"]
        if name in SANITIZER_ARRAYS and sanitizer:
            problems += _sanitizer_array(elf, k, src, SANITIZER_ARRAYS[name])
        elif s["type"] in (SHT_INIT_ARRAY, SHT_FINI_ARRAY, SHT_PREINIT_ARRAY) or \
                name.startswith((".init", ".fini", ".ctors", ".dtors", ".preinit")):
            problems.append(f"{src}: has a constructor or destructor (section {name}): code "
                            "that would run before or after the tests")
        elif not SECTION_RE.match(name):
            problems.append(f"{src}: has a section {name!r} (a C file compiled alone has none "
                            "like it)")
    for s in elf.symbols[1:]:
        name = s["name"]
        if s["type"] == STT_GNU_IFUNC:
            problems.append(f"{src}: defines an indirect function (ifunc) `{name}`")
        elif s["shndx"] == SHN_UNDEF:
            if name and name not in allowed and not (sanitizer and name.startswith(SANITIZER_PREFIXES)):
                problems.append(f"{src}: uses `{name}`, which exercises may not call or use "
                                "(see docs/grading.md: What an exercise may use)")
        elif s["bind"] in (STB_GLOBAL, STB_WEAK, STB_GNU_UNIQUE) or s["shndx"] == SHN_COMMON:
            if name not in own or s["type"] != STT_FUNC:
                problems.append(f"{src}: defines `{name}`: only the chapter's exercise functions "
                                "(declared in its cf_chNN.h) may be global; make helpers static")
    return problems


def _sanitizer_array(elf, k, src, prefix):
    """The sanitizer build's own constructor/destructor: one entry, pointing to the function
    GCC names _sub_I_00099_N / _sub_D_00099_N."""
    sec = elf.sections[k]
    relocs = elf.relocations(k)
    bad = [f"{src}: has a constructor or destructor (section {sec['name']})"]
    if sec["size"] > 8 or len(relocs) > 1:
        return bad
    for _off, symi, addend in relocs:
        if symi >= len(elf.symbols):
            return bad
        sym = elf.symbols[symi]
        if sym["type"] == STT_SECTION:
            hits = [s for s in elf.symbols if s["shndx"] == sym["shndx"] and
                    s["type"] == STT_FUNC and s["value"] == addend and s["bind"] == STB_LOCAL]
            sym = hits[0] if len(hits) == 1 else None
        if not sym or not sym["name"].startswith(prefix) or sym["bind"] != STB_LOCAL:
            return bad
    return []


def check_assembly(text, src):
    """Inline assembly: GCC wraps every asm statement in #APP ... #NO_APP in its output."""
    files, loc = {}, None
    for line in text.splitlines():
        t = line.strip()
        m = re.match(r'\.file\s+(\d+)\s+"([^"]*)"(?:\s+"([^"]*)")?', t)
        if m:
            files[m.group(1)] = m.group(3) or m.group(2)
            continue
        m = re.match(r"\.loc\s+(\d+)\s+(\d+)", t)
        if m:
            loc = (files.get(m.group(1), src), m.group(2))
            continue
        if t.startswith("#APP"):
            where = f"{Path(loc[0]).name}:{loc[1]}" if loc else src
            return [f"{src}: uses inline assembly (asm, near {where})"]
    return []


def check_preprocessed(text, src):
    """Stack-walking and jump builtins, wherever they come from (the standard headers have none)."""
    where, lineno = src, 0
    for line in text.splitlines():
        m = re.match(r'#\s*(\d+)\s+"([^"]*)"', line)
        if m:
            where, lineno = m.group(2), int(m.group(1)) - 1
            continue
        lineno += 1
        b = BUILTIN_RE.search(line)
        if b:
            return [f"{src}: uses {b.group(1)} (near {Path(where).name}:{lineno}): no exercise "
                    "needs to walk the stack or jump out of a function"]
    return []


H_LINE = re.compile(r"^(\.+) (.+)$")


def split_include_tree(stderr):
    """gcc -H writes the include tree ('. file' per level) and, at the end of preprocessing,
    'Multiple include guards may be useful for:' followed by bare paths. Returns
    ([(depth, path)], the compiler's other messages)."""
    tree, other, guards = [], [], False
    for line in stderr.splitlines():
        m = H_LINE.match(line)
        if m:
            tree.append((len(m.group(1)), m.group(2)))
        elif line.startswith("Multiple include guards may be useful for:"):
            guards = True
        elif guards and re.fullmatch(r"\S+\.h", line):
            continue
        else:
            other.append(line)
    return tree, other


def check_includes(tree, src, course_headers, system_dirs):
    """Direct includes: a course header (lib/include/cf/NAME.h relative to the build folder) or a
    standard header found in a system include folder. Files included by those are theirs."""
    problems = []
    for depth, path in tree:
        if depth != 1:
            continue
        p = Path(os.path.normpath(path))
        ok = (p.as_posix() in course_headers or
              (p.name in SYSTEM_HEADERS and str(p.parent) in system_dirs))
        if not ok:
            problems.append(f"{src}: includes {path}: only the course's headers (cf/...) and the "
                            f"standard C headers ({', '.join(sorted(SYSTEM_HEADERS))}) may be "
                            "included")
    return problems
