#!/usr/bin/env python3
"""Checks that every module a target imports is one of its declared dependencies.

For each target of the package at PATH (default: this repository and the Fuzz/ package), reads
the `import` lines of its Swift files and compares the modules with the target's dependencies in
Package.swift (`swift package dump-package`); a product of this repository's package declares
every module it lists (Fuzz/ uses the `UMFAWebAuthn` product). A module that is built anyway as
a dependency of a dependency can be imported without being declared, and then breaks the day
that dependency changes: this script names each such import. Modules of the toolchain
(Foundation, Synchronization, Testing, ...) need no declaration. Exits 1 when any is undeclared.

    scripts/check-imports.py [PATH ...]
"""
import json
import os
import re
import subprocess
import sys

TOOLCHAIN = {
    "Foundation", "FoundationEssentials", "FoundationNetworking", "Synchronization", "Dispatch",
    "Testing", "XCTest", "Glibc", "Darwin", "Musl", "os", "_Concurrency", "Observation", "RegexBuilder",
}
IMPORT = re.compile(
    r"^\s*(?:@[\w()]+\s+)*import\s+(?:(?:struct|class|enum|func|protocol|typealias|var|let)\s+)?(\w+)")


def dump(root):
    manifest = subprocess.run(
        ["swift", "package", "dump-package"], cwd=root, capture_output=True, text=True, check=True)
    return json.loads(manifest.stdout)


def undeclared(root, products):
    """The undeclared imports of the package at `root`; `products` maps each of this
    repository's library products to the modules it lists."""
    found = []
    for target in dump(root)["targets"]:
        if target["type"] in ("system", "plugin", "macro", "binary"):
            continue
        declared = set()
        for dependency in target["dependencies"]:
            for kind in ("byName", "target", "product"):
                if kind in dependency:
                    declared.add(dependency[kind][0])
            if "product" in dependency and dependency["product"][1] == "UMFA":
                declared.update(products.get(dependency["product"][0], []))
        folder = target.get("path") or os.path.join(
            "Tests" if target["type"] == "test" else "Sources", target["name"])
        for directory, _, files in os.walk(os.path.join(root, folder)):
            for name in sorted(files):
                if not name.endswith(".swift"):
                    continue
                path = os.path.join(directory, name)
                with open(path, encoding="utf-8") as source:
                    for line in source:
                        match = IMPORT.match(line)
                        if match and match.group(1) not in declared | TOOLCHAIN:
                            found.append((target["name"], match.group(1), os.path.relpath(path, root)))
    return found


def main():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    roots = sys.argv[1:] or [here, os.path.join(here, "Fuzz")]
    products = {
        product["name"]: product["targets"] for product in dump(here)["products"]
        if "library" in product["type"]}
    problems = [problem for root in roots for problem in undeclared(root, products)]
    for target, module, path in problems:
        print(f"{target}: imports {module} without declaring it ({path})")
    print(f"{len(problems)} undeclared imports")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
