#!/usr/bin/env python3
"""Fails where the README's command reference or layout table is no longer true.

Usage: check_readme.py <source dir> <atomstress binary>

  commands: every command `atomstress --help` lists has its `### \\`cmd`
            section under "## Commands";
  options:  every option a command's `--help` prints (but `--help` and the
            ones it calls "internal:") is named in that command's section,
            in a shared table whose "in" column covers the command, or in a
            docs/ page the section links to; and every option a section's
            table or a shared table names exists in the commands it is
            given for;
  layout:   every folder of the table exists, and every top-level folder
            and every folder of harness/ is in it.
Each offence is printed on a line of its own.
"""
import os
import re
import subprocess
import sys

OPTION = re.compile(r"--[a-z][a-z0-9-]*")


def sections(readme, level):
    """{heading: text} of the headings of `level` '#'s (text up to the next heading of that level or above)."""
    out, name, lines = {}, None, []
    for line in readme.splitlines():
        m = re.match(r"^(#+) (.*)", line)
        if m and len(m.group(1)) <= level:
            if name is not None:
                out[name] = "\n".join(lines)
            name, lines = (m.group(2), [line]) if len(m.group(1)) == level else (None, [])
            continue
        if name is not None:
            lines.append(line)
    if name is not None:
        out[name] = "\n".join(lines)
    return out


def help_options(binary, command):
    """The options `atomstress COMMAND --help` prints, without --help and the internal ones."""
    text = subprocess.run([binary, command, "--help"], capture_output=True, text=True, check=True).stdout
    options = set()
    for line in text.splitlines():
        m = re.match(r"^\s+(?:-\w \[ )?(--[a-z][a-z0-9-]*)(.*)", line)
        if m and m.group(1) != "--help" and "internal:" not in m.group(2):
            options.add(m.group(1))
    return options


def commands_listed(binary):
    text = subprocess.run([binary, "--help"], capture_output=True, text=True).stdout
    return [m.group(1) for m in re.finditer(r"^  ([a-z]+) ", text, re.M)]


def table_rows(text):
    """The cells of each markdown table row of `text` (header and rule rows skipped)."""
    rows = []
    for line in text.splitlines():
        if not line.startswith("|") or re.match(r"^\|[\s|:-]+\|$", line):
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        if cells and cells[0] not in ("option", "folder", "exit", "change"):
            rows.append(cells)
    return rows


def covered(cell, command, all_commands):
    """Whether a shared table's "in" cell ("check, repro", "all but `list`, `merge`") covers `command`."""
    names = set(re.findall(r"[a-z]+", cell.replace("all but", "")))
    return command not in names if cell.startswith("all but") else command in names


def check_options(src, binary, readme):
    errors = []
    commands = commands_listed(binary)
    by_command = {}
    for heading, text in sections(readme, 3).items():
        m = re.match(r"^`([a-z]+)", heading)
        if m:
            by_command[m.group(1)] = text
    shared = [text for heading, text in sections(readme, 3).items() if "(shared)" in heading]
    shared_rows = [row for text in shared for row in table_rows(text)]
    for command in commands:
        if command not in by_command:
            errors.append(f"README: no '### `{command}' section under ## Commands")
            continue
        text = by_command[command]
        named = set(OPTION.findall(text))
        for row in shared_rows:
            if covered(row[-1], command, commands):
                named |= set(OPTION.findall(row[0]))
        for link in re.findall(r"\]\((docs/[^)#]+\.md)", text):
            with open(os.path.join(src, link), encoding="utf-8") as f:
                named |= set(OPTION.findall(f.read()))
        options = help_options(binary, command)
        for option in sorted(options - named):
            errors.append(f"README: `{command} {option}` is in its --help but not in the README's command reference")
        for row in table_rows(text):
            for option in OPTION.findall(row[0]):
                if option not in options:
                    errors.append(f"README: the `{command}` table names {option}, which `{command} --help` does not have")
    for row in shared_rows:
        for command in commands:
            if covered(row[-1], command, commands):
                for option in set(OPTION.findall(row[0])) - help_options(binary, command):
                    errors.append(f"README: a shared table gives {option} to `{command}`, which does not have it")
    return errors


def check_layout(src, readme):
    errors = []
    layout = sections(readme, 2).get("Layout", "")
    listed = set()
    for row in table_rows(layout):
        for folder in re.findall(r"`([^`]+/)`", row[0]):
            listed.add(folder)
            if not os.path.isdir(os.path.join(src, folder)):
                errors.append(f"README: the layout table lists {folder}, which does not exist")
    tracked = subprocess.run(["git", "-C", src, "ls-files"], capture_output=True, text=True)
    files = tracked.stdout.splitlines() if tracked.returncode == 0 else []
    folders = {f.split("/")[0] + "/" for f in files if "/" in f and not f.startswith(".")}
    folders |= {"/".join(f.split("/")[:2]) + "/" for f in files if f.startswith("harness/") and f.count("/") >= 2}
    folders.discard("harness/")
    for folder in sorted(folders - listed):
        errors.append(f"README: the layout table does not list {folder}")
    return errors


def main():
    if len(sys.argv) != 3:
        print(__doc__.splitlines()[2], file=sys.stderr)
        return 2
    src, binary = sys.argv[1], sys.argv[2]
    with open(os.path.join(src, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    errors = check_options(src, binary, readme) + check_layout(src, readme)
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
