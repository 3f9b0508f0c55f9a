#!/usr/bin/env python3
"""Fails on a C++/CUDA function body longer than 80 lines (issue 29, item 5).

Usage: check_function_length.py <source dir>

Every C++/CUDA file under the project's own folders (harness/, fuzz/,
reports/, properties/, atomics_under_test/, include/; not tests/, bench/ or
examples/) is read by a small brace matcher that skips comments, string and
character literals and preprocessor lines.  A function is a '{' at namespace
or class scope whose header ends in ')' (after qualifiers such as const,
noexcept, override or a trailing '-> type'), or in a constructor's member
initialiser list.  Its length counts the lines from its opening brace to its
closing brace, both included.  Each function over the limit is printed as
`file:line name N lines`.

The checker's CUDA kernels may run long (a kernel is one launch's whole
program, and splitting it costs registers): they are listed in EXEMPTIONS,
each with its reason.  An exemption that no longer matches a long function
fails the check too, so the list stays the truth.
"""
import fnmatch
import os
import re
import sys

LIMIT = 80

FOLDERS = ["harness", "fuzz", "reports", "properties", "atomics_under_test", "include"]
SOURCE_ENDINGS = (".cpp", ".hpp", ".cu", ".cuh", ".inc", ".h")

# (file pattern, function name, reason).  Only the checker's kernels belong here.
EXEMPTIONS = [
    ("harness/check/checker_fast.inc", "partition",
     "the fast checker's radix partition: one noinline pass whose locals stay in registers"),
    ("harness/check/checker_fast.inc", "scan_range",
     "the fast checker's inner scan, always inlined: its state is the loop's registers"),
    ("harness/check/checker_fast.inc", "check_nan",
     "the fast checker's per-width driver, instantiated once per value type and target"),
]

# Identifiers whose parentheses are not a parameter list.
NOT_A_NAME = {"decltype", "alignas", "__attribute__", "__declspec", "noexcept", "throw",
              "sizeof", "alignof", "__launch_bounds__", "requires", "static_assert"}
# Words that may follow a parameter list before the body.
QUALIFIERS = {"const", "volatile", "noexcept", "override", "final", "mutable", "constexpr",
              "try", "&", "&&", "throw"}
CLASS_KEYS = {"class", "struct", "union", "enum"}
ACCESS = {"public", "private", "protected"}

TOKEN = re.compile(r"""
    (?P<ident>[A-Za-z_]\w*)
  | (?P<number>\.?\d(?:[\w.']|[eEpP][+-])*)
  | (?P<punct>::|->|&&|\|\||==|!=|<=|>=|<<|>>|[-+*/%&|^!~<>=?:;,.(){}\[\]#@$\\])
""", re.VERBOSE)


def tokens(text):
    """(token, line) pairs with comments, literals and preprocessor lines removed.

    A string literal becomes the token '""', a character literal "''"."""
    i, line, n = 0, 1, len(text)
    at_line_start = True
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
            at_line_start = True
            continue
        if c in " \t\r\f\v":
            i += 1
            continue
        if at_line_start and c == "#":
            # A preprocessor directive, with its continuation lines.
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    line += 1
                    i += 1
                i += 1
            continue
        at_line_start = False
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            line += text.count("\n", i, end)
            i = end
            continue
        raw = re.match(r'(?:u8|[uUL])?R"([^(\s]*)\(', text[i:i + 40])
        if raw:
            closing = ")" + raw.group(1) + '"'
            end = text.find(closing, i + raw.end())
            end = n if end < 0 else end + len(closing)
            line += text.count("\n", i, end)
            yield '""', line
            i = end
            continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            yield ('""' if c == '"' else "''"), line
            i = j + 1
            continue
        match = TOKEN.match(text, i)
        if not match:
            i += 1
            continue
        yield match.group(0), line
        i = match.end()


def closing_paren(header, close):
    """The index of the '(' matching header[close] == ')'."""
    depth = 0
    for k in range(close, -1, -1):
        if header[k][0] == ")":
            depth += 1
        elif header[k][0] == "(":
            depth -= 1
            if depth == 0:
                return k
    return None


def parameter_list_end(header):
    """The index of the ')' that closes the parameter list when the header
    (the tokens before a '{') ends like a function's, else None."""
    k = len(header) - 1
    # Constructor: "X(args) : a_{1}, b_(2)" ends in '}' or ')' after a ':'.
    while k >= 0:
        word = header[k][0]
        if word in QUALIFIERS:
            k -= 1
        elif word == ")":
            opening = closing_paren(header, k)
            if opening is None:
                return None
            before = header[opening - 1][0] if opening > 0 else ""
            if before in ("noexcept", "throw", "__attribute__"):
                k = opening - 2
                continue
            return k
        else:
            break
    # A trailing return type: "auto f(...) -> type".
    arrow = max((i for i, (t, _) in enumerate(header) if t == "->"), default=None)
    if arrow is not None and arrow > 0 and header[arrow - 1][0] in QUALIFIERS | {")"}:
        return parameter_list_end(header[:arrow])
    return None


def initialiser_list(header):
    """True when the header is a constructor with a member initialiser list."""
    depth = 0
    for k, (t, _) in enumerate(header):
        if t in "([":
            depth += 1
        elif t in ")]":
            depth -= 1
        elif t == ":" and depth == 0 and k > 0 and header[k - 1][0] == ")":
            return True
    return False


def function_name(header):
    """The function's name and line: the word before the first parameter list."""
    depth = 0
    for k, (t, line) in enumerate(header):
        if t == "<":
            depth += 1  # template arguments: skip their parentheses
        elif t in (">", ">>") and depth > 0:
            depth = max(0, depth - len(t))
        if t != "(" or depth > 0 or k == 0:
            continue
        before = header[k - 1][0]
        if before == "operator":
            return "operator()", header[k - 1][1]
        if re.match(r"[A-Za-z_]", before) and before not in NOT_A_NAME:
            name, j = before, k - 1
            while j >= 2 and header[j - 1][0] == "::":
                name = header[j - 2][0] + "::" + name
                j -= 2
            if j >= 1 and header[j - 1][0] == "~":
                name = "~" + name
            return name, header[k - 1][1]
        # operator==, operator<< ...: punctuation back to 'operator'
        j = k - 1
        while j >= 0 and not re.match(r"[A-Za-z_]", header[j][0]):
            j -= 1
        if j >= 0 and header[j][0] == "operator":
            return "operator" + "".join(t for t, _ in header[j + 1:k]), header[j][1]
    return "?", header[0][1] if header else 0


def classify(header):
    """What a '{' at namespace or class scope opens: 'ns', 'class', 'fn' or 'other'."""
    words = [t for t, _ in header]
    if "namespace" in words or (words[:2] == ["extern", '""']):
        return "ns"
    if parameter_list_end(header) is not None or (
            words and words[-1] in ("}", ")") and initialiser_list(header)):
        return "fn"
    keys = [k for k, w in enumerate(words) if w in CLASS_KEYS]
    if keys and "=" not in words[keys[-1]:]:  # "template <bool F = true> struct X {" is a class
        return "class"
    return "other"


def functions(text):
    """(name, line of the name, lines of the body) for every function in text."""
    scopes = []      # one kind per open brace: ns, class, fn, other, inner
    header = []      # tokens since the last declaration boundary at this scope
    opened = []      # for each open brace: (kind, line, name, name line)
    for token, line in tokens(text):
        at_declaration_scope = not scopes or scopes[-1] in ("ns", "class")
        if token == "{":
            if at_declaration_scope:
                kind = classify(header)
                name, name_line = function_name(header) if kind == "fn" else ("", line)
                if kind != "other":
                    header = []
            else:
                kind, name, name_line = "inner", "", line
            scopes.append(kind)
            opened.append((kind, line, name, name_line))
            continue
        if token == "}":
            if not scopes:
                continue
            kind, start, name, name_line = opened.pop()
            scopes.pop()
            if kind == "fn":
                yield name, name_line, line - start + 1
            if kind == "other" and (not scopes or scopes[-1] in ("ns", "class")):
                header.append(("}", line))  # e.g. a member initialiser "a_{1}"
            elif not scopes or scopes[-1] in ("ns", "class"):
                header = []
            continue
        if not at_declaration_scope:
            continue
        if token == ";":
            header = []
        elif token == ":" and header and header[-1][0] in ACCESS:
            header = []
        else:
            header.append((token, line))


def source_files(root):
    for top in FOLDERS:
        for folder, dirs, files in os.walk(os.path.join(root, top)):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(SOURCE_ENDINGS):
                    yield os.path.relpath(os.path.join(folder, name), root)


def exemption_for(path, name):
    for index, (pattern, exempt_name, _) in enumerate(EXEMPTIONS):
        if fnmatch.fnmatch(path, pattern) and name == exempt_name:
            return index
    return None


def main():
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        print("usage: check_function_length.py <source dir>", file=sys.stderr)
        return 2
    root = os.path.abspath(sys.argv[1])
    found, used, counted = [], set(), 0
    for path in source_files(root):
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            text = f.read()
        for name, line, length in functions(text):
            counted += 1
            if length <= LIMIT:
                continue
            exempt = exemption_for(path, name)
            if exempt is not None:
                used.add(exempt)
                continue
            found.append(f"{path}:{line} {name} {length} lines")
    for index, (pattern, name, _) in enumerate(EXEMPTIONS):
        if index not in used:
            found.append(f"{pattern} {name}: no longer over {LIMIT} lines: "
                         f"remove it from EXEMPTIONS")
    for entry in found:
        print(entry)
    print(f"check_function_length: {counted} functions, {len(found)} over {LIMIT} lines "
          f"or stale exemption(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
