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
  the sanitizer build), no indirect function (ifunc), no thread-local storage, no versioned
  symbol, no section outside GCC's own (KEEP_SECTION_RE), nothing writable and executable, no
  executable stack;
- OpenMP (GOMP_*, omp_*) is allowed: chapter 8's spec recommends it;
- no inline assembly (GCC marks it #APP in the .s), no stack or control-flow builtins
  (__builtin_frame_address, __builtin_longjmp, ...);
- #include only the course's headers (lib/include/cf/*.h) and the standard C headers of
  SYSTEM_HEADERS, read from the real include tree (gcc -H), not from line markers.

Every function takes bytes or text the sandbox wrote and never trusts it: a malformed object is a
refusal, not a crash. A refusal is a list of one-line reasons naming the file and the symbol.

The inspection is a courtesy to the honest student (a clear refusal of an fopen left in), not the
security boundary: that is the confined run (lib/test/cft_confine.h) and, before the link, the
sanitizing of every student object (sanitize_plan(), check_sanitized()): only GCC's own sections
stay, only the exercise functions stay global, so that nothing of the student's runs at load time
or in place of a function the test's process calls.
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
__assert_fail __stack_chk_fail
__printf_chk __fprintf_chk __vprintf_chk __vfprintf_chk __snprintf_chk __vsnprintf_chk
__sprintf_chk __vsprintf_chk __memcpy_chk __memmove_chk __memset_chk __strcpy_chk __strncpy_chk
__strcat_chk __strncat_chk
""".split())

# libcf globals an exercise may not call: the stub hook (test plumbing: it decides how a reached
# stub fails a test); the library's file readers and writers are found by file_functions()
LIBCF_DENIED = frozenset(["cf_set_todo_hook"])

# what OpenMP code calls (chapter 8's spec recommends `#pragma omp parallel for`)
OPENMP_PREFIXES = ("GOMP_", "omp_")

# the C library's ways into the file system: a library function that reaches one of these
# reads or writes files (file_functions())
FILE_CALLS = frozenset("""
fopen fopen64 freopen freopen64 fdopen open open64 openat openat64 __open_2 __open64_2 creat
opendir fdopendir scandir popen tmpfile tmpfile64 mkstemp mkostemp remove unlink unlinkat rename
renameat truncate ftruncate mkdir rmdir symlink link chmod chown stat stat64 lstat
""".split())

# what looks up symbols or the program's own image at run time: refused with its own reason
DYNAMIC_LOOKUP = frozenset("dlopen dlsym dlvsym dladdr dladdr1 dlinfo dl_iterate_phdr "
                           "dlmopen dlerror dlclose _dl_find_object getauxval".split())

SANITIZER_PREFIXES = ("__asan_", "__ubsan_", "__sanitizer_", "__lsan_")

# stack walking and non-local jumps: the ways to reach into the harness's frames
DENIED_BUILTINS = ("__builtin_frame_address", "__builtin_return_address",
                   "__builtin_extract_return_addr", "__builtin_frob_return_addr",
                   "__builtin_setjmp", "__builtin_longjmp", "__builtin_apply",
                   "__builtin_apply_args", "__builtin_return", "__builtin_eh_return",
                   "__builtin_unwind_init", "__builtin_dwarf_cfa", "__builtin_stack_save",
                   "__builtin_stack_restore")
BUILTIN_RE = re.compile(r"\b(" + "|".join(DENIED_BUILTINS) + r")\b")

# the sections GCC writes for a C file compiled alone (and their relocations); the sanitizer
# removes every other one before the link, the inspection refuses it (.init, .ctors, .init_array,
# a section named by the student: .text is the only code, entered through a symbol)
_GCC_SECTION = (r"\.text(\.(startup|unlikely|hot|exit))?|\.data(\.rel(\.ro)?(\.local)?)?|"
                r"\.rodata(\.(str\d{1,2}\.\d{1,2}|cst\d{1,2}))?|\.bss|\.eh_frame|"
                r"\.debug_(info|abbrev|loclists|rnglists|aranges|line|line_str|str|frame|loc|"
                r"ranges|macro|types|addr|str_offsets)|\.comment|\.note\.GNU-stack|"
                r"\.note\.gnu\.property")
KEEP_SECTION_RE = re.compile(r"^(|\.rela)?(" + _GCC_SECTION + r")$")
TABLES = re.compile(r"^(|\.symtab|\.strtab|\.shstrtab)$")
SANITIZER_ARRAYS = {".init_array.00099": "_sub_I_00099_", ".fini_array.00099": "_sub_D_00099_"}
SHF_WRITE, SHF_EXECINSTR, SHF_TLS = 0x1, 0x4, 0x400
STT_TLS, STT_COMMON = 6, 5

SHT_SYMTAB, SHT_RELA, SHT_DYNSYM, SHT_GROUP = 2, 4, 11, 17
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
                                      entsize=entsize,
                                      raw=self._str(str_off, str_size, name, "surrogateescape")))
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

    def _str(self, off, size, k, errors="replace"):
        if k >= size:
            raise BadObject("bad string offset")
        end = self.data.find(b"\0", off + k, off + size)
        if end < 0:
            raise BadObject("unterminated string")
        return self.data[off + k:end].decode("utf-8", errors)

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


def file_functions(archive_path):
    """The global functions of the library archive that read or write files: those from which a
    call chain (direct calls, tail calls, taken addresses; static helpers included) reaches one of
    FILE_CALLS, from the archive's disassembly with relocations (objdump -dr)."""
    r = subprocess.run(["objdump", "-dr", "--no-show-raw-insn", str(archive_path)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"objdump {archive_path}: {r.stderr.strip()[:300]}")
    member, fn = None, None
    edges, local = {}, {}
    for line in r.stdout.splitlines():
        m = re.match(r"^(\S+\.o):\s+file format", line)
        if m:
            member, fn = m.group(1), None
            continue
        m = re.match(r"^[0-9a-f]+ <([^>]+)>:$", line)
        if m:
            fn = (member, m.group(1))
            local.setdefault(member, set()).add(m.group(1))
            edges.setdefault(fn, set())
            continue
        if fn is None:
            continue
        m = re.search(r"\b(?:call|jmp)\s+[0-9a-f]+ <([^>+]+)>", line)
        if m and m.group(1) != fn[1]:
            edges[fn].add(m.group(1))
        m = re.search(r"R_X86_64_(?:PLT32|PC32|GOTPCRELX?|REX_GOTPCRELX|32S?|64)\s+([^\s+-]+)", line)
        if m and not m.group(1).startswith(".L"):
            edges[fn].add(m.group(1))
    # callee names resolve to the member's own function first, then to a global one
    glob = {}
    for (mem, name) in edges:
        glob.setdefault(name, []).append((mem, name))
    bad = set()
    changed = True
    while changed:
        changed = False
        for node, targets in edges.items():
            if node in bad:
                continue
            mem = node[0]
            for t in targets:
                hit = t in FILE_CALLS or (mem, t) in bad or \
                    (t not in local.get(mem, ()) and any(g in bad for g in glob.get(t, [])))
                if hit:
                    bad.add(node)
                    changed = True
                    break
    return {name for (_mem, name) in bad}


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

def show(name):
    """A section or symbol name for a one-line reason (the student chose it)."""
    text = name if len(name) <= 60 else name[:57] + "..."
    return repr(text) if not re.fullmatch(r"[\w.$]*", text) else f"`{text}`"


def check_object(data, src, own, allowed, sanitizer=False, file_functions=frozenset()):
    """Problems of one compiled translation unit (a list of one-line strings): it may define
    only functions of own (its chapter's exercise functions) and use only names in allowed (and
    OpenMP's); file_functions are the library's functions that read or write files."""
    try:
        elf = Elf(data, want_type=1)
    except (BadObject, struct.error, UnicodeDecodeError, ValueError) as e:
        return [f"{src}: the compiled object cannot be read ({e})"]
    problems = []
    for k, s in enumerate(elf.sections):
        name = s["name"]
        if TABLES.match(name):
            continue
        if name in SANITIZER_ARRAYS and sanitizer:
            problems += _sanitizer_array(elf, k, src, SANITIZER_ARRAYS[name])
        elif sanitizer and name.startswith(".rela") and name[5:] in SANITIZER_ARRAYS:
            continue  # checked with its array
        elif s["type"] in (SHT_INIT_ARRAY, SHT_FINI_ARRAY, SHT_PREINIT_ARRAY) or \
                name.startswith((".init", ".fini", ".ctors", ".dtors", ".preinit")):
            problems.append(f"{src}: has a constructor or destructor (section {show(name)}): code "
                            "that would run before or after the tests")
        elif not KEEP_SECTION_RE.match(name):
            problems.append(f"{src}: has a section {show(name)}: a C file compiled alone has none "
                            "like it (GCC's own sections only: no code outside .text)")
        elif s["flags"] & SHF_WRITE and s["flags"] & SHF_EXECINSTR:
            problems.append(f"{src}: has a section {show(name)} that is writable and executable")
        elif name == ".note.GNU-stack" and s["flags"] & SHF_EXECINSTR:
            problems.append(f"{src}: asks for an executable stack (a nested function?)")
        elif s["flags"] & SHF_TLS:
            problems.append(f"{src}: has thread-local storage (section {show(name)})")
    # symbols a relocation names (the assembler lists _GLOBAL_OFFSET_TABLE_ whenever code takes a
    # function's address through the GOT; only a relocation against it is arithmetic on it)
    used = {symi for k in range(len(elf.sections)) for _off, symi, _add in elf.relocations(k)}
    for i, s in enumerate(elf.symbols[1:], 1):
        name = s["name"]
        if name == "_GLOBAL_OFFSET_TABLE_" and s["shndx"] == SHN_UNDEF and i not in used:
            continue
        if s["type"] == STT_GNU_IFUNC:
            problems.append(f"{src}: defines an indirect function (ifunc) {show(name)}: its "
                            "resolver would run when the program loads")
        elif s["type"] == STT_TLS:
            problems.append(f"{src}: uses thread-local storage ({show(name)})")
        elif "@" in name:
            problems.append(f"{src}: has a versioned symbol {show(name)}")
        elif s["shndx"] == SHN_UNDEF:
            if not name or name in allowed or name.startswith(OPENMP_PREFIXES) or \
                    (sanitizer and name.startswith(SANITIZER_PREFIXES)):
                continue
            if name == "_GLOBAL_OFFSET_TABLE_":
                problems.append(f"{src}: uses `_GLOBAL_OFFSET_TABLE_` (its address): no exercise "
                                "needs the program's own linkage tables")
            elif name in DYNAMIC_LOOKUP:
                problems.append(f"{src}: uses `{name}`, which looks up the program's own code at "
                                "run time (exercises may not)")
            elif name.startswith(SANITIZER_PREFIXES):
                problems.append(f"{src}: uses `{name}` of the sanitizers' run time (exercises "
                                "may not ask whether they run under a sanitizer)")
            elif name in file_functions:
                problems.append(f"{src}: uses `{name}`, a library function that reads or writes "
                                "files (an exercise computes; it never opens a file)")
            else:
                problems.append(f"{src}: uses {show(name)}, which exercises may not call or use "
                                "(see docs/grading.md: What an exercise may use)")
        elif s["bind"] in (STB_GLOBAL, STB_WEAK, STB_GNU_UNIQUE) or s["shndx"] == SHN_COMMON:
            if s["shndx"] == SHN_COMMON and name.startswith(".gomp_critical_user_"):
                continue  # the lock of a named `#pragma omp critical`
            if name not in own or s["type"] != STT_FUNC:
                problems.append(f"{src}: defines {show(name)}: only the chapter's exercise "
                                "functions (declared in its cf_chNN.h) may be global; make "
                                "helpers static")
    return problems


def _kept_sections(elf, sanitizer):
    """Indices of the sections that stay: GCC's own (not writable and executable, not
    thread-local) and, in the sanitizer build, its own constructor and destructor arrays when
    they are exactly that (_sanitizer_array), with their relocations."""
    arrays = {s["name"] for k, s in enumerate(elf.sections) if sanitizer and
              s["name"] in SANITIZER_ARRAYS and not _sanitizer_array(elf, k, "", SANITIZER_ARRAYS[s["name"]])}
    keep = set()
    for k, s in enumerate(elf.sections):
        name = s["name"]
        if TABLES.match(name) or name in arrays or (name.startswith(".rela") and name[5:] in arrays):
            keep.add(k)
        elif KEEP_SECTION_RE.match(name) and not (s["flags"] & SHF_WRITE and s["flags"] & SHF_EXECINSTR) \
                and not s["flags"] & SHF_TLS:
            keep.add(k)
    return keep


def sanitize_plan(data, sanitizer=False):
    """The sections the sanitizer removes from a student object before the link: exact names
    (surrogate-escaped) for objcopy's --remove-section."""
    elf = Elf(data, want_type=1)
    keep = _kept_sections(elf, sanitizer)
    return [s["raw"] for k, s in enumerate(elf.sections) if k not in keep]


def check_sanitized(data, src, own, sanitizer=False):
    """What must hold of a sanitized object whatever the inspection said (the link's input):
    GCC's own sections, nothing writable and executable, no executable stack, only exercise
    functions global, no ifunc, no thread-local or versioned symbol."""
    try:
        elf = Elf(data, want_type=1)
    except (BadObject, struct.error, UnicodeDecodeError, ValueError) as e:
        return [f"{src}: the sanitized object cannot be read ({e})"]
    problems = []
    keep = _kept_sections(elf, sanitizer)
    for k, s in enumerate(elf.sections):
        if k not in keep:
            problems.append(f"{src}: section {show(s['name'])} survived the sanitizer")
        elif s["name"] == ".note.GNU-stack" and s["flags"] & SHF_EXECINSTR:
            problems.append(f"{src}: asks for an executable stack")
    for s in elf.symbols[1:]:
        name = s["name"]
        if s["type"] in (STT_GNU_IFUNC, STT_TLS) or "@" in name:
            problems.append(f"{src}: symbol {show(name)} survived the sanitizer")
        elif s["shndx"] != SHN_UNDEF and (s["bind"] in (STB_GLOBAL, STB_WEAK, STB_GNU_UNIQUE) or
                                           s["shndx"] == SHN_COMMON):
            if s["shndx"] == SHN_COMMON and name.startswith(".gomp_critical_user_"):
                continue
            if name not in own or s["type"] != STT_FUNC:
                problems.append(f"{src}: global {show(name)} survived the sanitizer")
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
