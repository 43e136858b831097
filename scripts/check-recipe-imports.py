#!/usr/bin/env python3
"""Checks that every Swift recipe Linux cannot compile imports the modules it uses.

A ```` ```swift apple-only ```` snippet in docs/*.md, and every ```` ```swift ```` snippet of the
SDK's DocC catalogue (Sources/UMFA/UMFA.docc), is not compiled on Linux. This script reads each
one's `import` lines and the type-like names it uses (capitalised identifiers outside comments
and string literals), and looks each name up among the public declarations of the package's
own modules (Sources/<module>/**/*.swift: `public` or `open` class, struct, enum, protocol,
actor or typealias). A name declared by a package module must be declared by a module the
snippet imports, or by a module one of those re-exports (`@_exported import`), or by the
snippet itself. Names no package module declares (Foundation, AuthenticationServices, the
standard library) are not checked. A DocC snippet without imports stands for code in a file
that imports `UMFA`.

    scripts/check-recipe-imports.py [--self-test]

`--self-test` plants a recipe that uses a type of a module it does not import, and one that
imports it, and fails unless the first is caught and the second passes.
"""
import glob
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

DECLARATION = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:public|open)\s+(?:(?:final|indirect|nonisolated)\s+)*"
    r"(?:class|struct|enum|protocol|actor|typealias)\s+([A-Z]\w*)")
NESTED_TYPE = re.compile(r"^\s+")
EXPORTED = re.compile(r"^\s*@_exported\s+import\s+(\w+)")
IMPORT = re.compile(r"^\s*(?:@\w+\s+)?import\s+(?:(?:struct|class|enum|protocol|func|typealias)\s+)?(\w+)")
LOCAL = re.compile(r"\b(?:class|struct|enum|protocol|actor|typealias|extension)\s+([A-Z]\w*)")
NAME = re.compile(r"\b([A-Z]\w*)\b")
FENCE = re.compile(r"^\s*```(\S*)\s*(.*)$")


def declarations(root):
    """Module -> the top-level public type names it declares; module -> modules it re-exports."""
    declared, exported = {}, {}
    for module_dir in sorted(glob.glob(os.path.join(root, "Sources", "*"))):
        module = os.path.basename(module_dir)
        names, reexports = set(), set()
        for path in glob.glob(os.path.join(module_dir, "**", "*.swift"), recursive=True):
            with open(path, encoding="utf-8") as handle:
                for line in handle:
                    match = DECLARATION.match(line)
                    # Top level only: a nested type is reached through its parent's name.
                    if match and not NESTED_TYPE.match(line):
                        names.add(match.group(1))
                    match = EXPORTED.match(line)
                    if match:
                        reexports.add(match.group(1))
        declared[module] = names
        exported[module] = reexports
    return declared, exported


def snippets(path, docc):
    """(line, text) of each snippet to check in the page at `path`."""
    found, inside, start, body, checked = [], False, 0, [], False
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            match = FENCE.match(line)
            if match and not inside:
                language, tags = match.group(1), match.group(2).split()
                inside, start, body = True, number, []
                checked = language == "swift" and (docc or "apple-only" in tags)
            elif line.strip().startswith("```") and inside:
                if checked:
                    found.append((start, "".join(body)))
                inside = False
            elif inside:
                body.append(line)
    return found


def code_only(text):
    """The snippet without comments and string literals."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r'"""(.*?)"""', '""', text, flags=re.S)
    text = re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)
    return re.sub(r"//[^\n]*", " ", text)


def reachable(modules, exported):
    """The modules `modules` make visible, with what they re-export, transitively."""
    seen, todo = set(), list(modules)
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        todo.extend(exported.get(module, ()))
    return seen


def problems(root, pages):
    declared, exported = declarations(root)
    owners = {}
    for module, names in declared.items():
        for name in names:
            owners.setdefault(name, set()).add(module)
    found = []
    for page, docc in pages:
        for line, text in snippets(page, docc):
            code = code_only(text)
            imports = [IMPORT.match(row).group(1) for row in code.splitlines() if IMPORT.match(row)]
            if docc and not imports:
                imports = ["UMFA"]
            visible = reachable(imports, exported)
            local = set(LOCAL.findall(code))
            body = "\n".join(row for row in code.splitlines() if not IMPORT.match(row))
            missing = {}
            for name in sorted(set(NAME.findall(body)) - local):
                modules = owners.get(name)
                if modules and not modules & visible:
                    missing[name] = sorted(modules)
            for name, modules in missing.items():
                relative = os.path.relpath(page, root)
                found.append(
                    f"{relative}:{line}: `{name}` is declared in {' or '.join(modules)}, "
                    f"which the snippet does not import (imports: {', '.join(imports) or 'none'})")
    return found


def pages_of(root):
    listed = [(path, False) for path in sorted(glob.glob(os.path.join(root, "docs", "*.md")))]
    listed += [(path, True) for path in sorted(glob.glob(os.path.join(root, "Sources", "UMFA", "UMFA.docc", "*.md")))]
    return listed


def self_test():
    with tempfile.TemporaryDirectory() as scratch:
        os.makedirs(os.path.join(scratch, "Sources", "Wire"))
        os.makedirs(os.path.join(scratch, "Sources", "Kit"))
        os.makedirs(os.path.join(scratch, "docs"))
        with open(os.path.join(scratch, "Sources", "Wire", "Options.swift"), "w") as handle:
            handle.write("public struct CreationOptions {\n    public struct Nested {}\n}\n")
        with open(os.path.join(scratch, "Sources", "Kit", "Client.swift"), "w") as handle:
            handle.write("public final class KitClient {}\n")
        with open(os.path.join(scratch, "docs", "page.md"), "w") as handle:
            handle.write(
                "```swift apple-only\nimport Kit\nlet options: CreationOptions // Nested\n"
                "let c = KitClient()\n```\n\n"
                "```swift apple-only\nimport Kit\nimport Wire\nstruct Mine {}\nlet options: CreationOptions\n```\n\n"
                "```swift compile\nlet options: CreationOptions\n```\n")
        found = problems(scratch, [(os.path.join(scratch, "docs", "page.md"), False)])
        caught = len(found) == 1 and "`CreationOptions` is declared in Wire" in found[0] and ":1:" in found[0]
        with open(os.path.join(scratch, "Sources", "Kit", "Exports.swift"), "w") as handle:
            handle.write("@_exported import Wire\n")
        exported = problems(scratch, [(os.path.join(scratch, "docs", "page.md"), False)])
        if not caught or exported:
            print(f"check-recipe-imports self-test: FAILED (caught {found}, after re-export {exported})")
            return 1
    print("check-recipe-imports self-test: ok (a missing import is caught; an import or a re-export passes)")
    return 0


def main():
    if "--self-test" in sys.argv[1:]:
        return self_test()
    found = problems(HERE, pages_of(HERE))
    for problem in found:
        print(problem)
    if found:
        print(f"check-recipe-imports: {len(found)} name(s) used without importing their module")
        return 1
    checked = sum(len(snippets(page, docc)) for page, docc in pages_of(HERE))
    print(f"check-recipe-imports: ok ({checked} Apple-only and DocC snippets import what they use)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
