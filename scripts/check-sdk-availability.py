#!/usr/bin/env python3
"""Checks that the SDK product builds for the platforms Package.swift declares.

Two checks, both from `swift package dump-package` and the sources, without Apple's toolchain:

1. Availability. Every target in the closure of the `UMFA` library product is scanned for
   symbols whose Apple availability is newer than the declared minimum (`platforms:` in
   Package.swift): the table below lists the ones a Swift 6 toolchain on Linux accepts but an
   older iOS or macOS does not have (Span, InlineArray, Observations, ML-KEM, ...). The
   SDK's own `@available(iOS N, macOS M, *)` declarations above the minimum join the table
   under their names. A use passes when the same file guards it with `#available` or
   `@available` for a version at least as new; otherwise it is named and the script fails.
2. Dependencies. The closure of the `UMFA` product may not contain a server module, the
   storage engines or their drivers, Hummingbird, or X.509: an app links none of them.

Linux needs no declaration in Package.swift (SwiftPM has no Linux version to declare).

    scripts/check-sdk-availability.py [--self-test]

`--self-test` runs both checks against planted violations in a scratch copy of the sources
and fails unless each one is caught.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PRODUCT = "UMFA"

# Symbol (a regular expression over one line) -> (macOS, iOS) release that introduced it.
NEWER = {
    r"\bMutex\s*[<(]": ("15", "18"),
    r"\bAtomic\s*[<(]": ("15", "18"),
    r"\bAtomicLazyReference\b": ("15", "18"),
    r"\bU?Int128\b": ("15", "18"),
    r"\bRangeSet\b": ("15", "18"),
    r"String\(validating:": ("15", "18"),
    r"\b(Mutable)?(Raw)?Span\b": ("26", "26"),
    r"\bOutput(Raw)?Span\b": ("26", "26"),
    r"\bUTF8Span\b": ("26", "26"),
    r"\bInlineArray\b": ("26", "26"),
    r"\bObservations\s*[{(]": ("26", "26"),
    r"\bTask\.immediate\b": ("26", "26"),
    r"\bTask\s*\(\s*name:": ("26", "26"),
    r"\.span\b": ("26", "26"),
    r"\bMLKEM(768|1024)\b": ("26", "26"),
    r"\bMLDSA(65|87)\b": ("26", "26"),
    r"\bwithDiscardingTaskGroup\b": ("14", "17"),
    r"@Observable\b": ("14", "17"),
    r"\bHPKE\.": ("14", "17"),
    r"\bDuration\b": ("13", "16"),
    r"\b(Continuous|Suspending)Clock\b": ("13", "16"),
    r"Task\.sleep\(for:": ("13", "16"),
    r"\bRegex\s*[<({]": ("13", "16"),
    r"\.(firstMatch|wholeMatch|prefixMatch)\(of:": ("13", "16"),
    r"URL\(filePath:": ("13", "16"),
    r"\.appending\((path|component|components):": ("13", "16"),
}
# Modules the SDK product may not build.
FORBIDDEN = {
    "UMFAServer", "UMFAStorage", "UMFATokens", "UMFACLI", "UMFAWebAuthn", "UMFAQR", "CSQLite",
    "Hummingbird", "HummingbirdCore", "PostgresNIO", "X509", "SwiftASN1", "ServiceLifecycle",
    "Prometheus", "NIOPosix",
}
AVAILABLE = re.compile(r"[#@]available\(([^)]*)\)")
DECLARED = re.compile(
    r"@available\(([^)]*)\)\s*(?:\n\s*)*(?:public |package |internal |private |fileprivate |final |static |"
    r"nonisolated |@\w+ )*(?:func|var|let|struct|class|enum|actor|protocol|typealias|init)\s*(\w*)")


def version(text):
    return tuple(int(part) for part in text.split("."))


def platforms_in(arguments):
    """The `macOS`/`iOS` versions an `@available`/`#available` argument list names."""
    found = {}
    for item in arguments.split(","):
        match = re.match(r"\s*(macOS|iOS)\s+([\d.]+)", item)
        if match:
            found[match.group(1)] = version(match.group(2))
    return found


def guarded_ranges(text):
    """(first line, last line, versions) of each `@available` declaration or `#available` block.

    `@available` and `if #available` cover the braces that follow them; `guard #available`
    covers the rest of the enclosing braces.
    """
    lines = [0]
    for character in text:
        lines.append(lines[-1] + (character == "\n"))
    ranges = []
    for match in AVAILABLE.finditer(text):
        versions = platforms_in(match.group(1))
        is_guard = text[max(0, match.start() - 12):match.start()].rstrip().endswith("guard")
        depth, position = 0, match.end()
        if is_guard:
            while position < len(text) and depth >= 0:
                depth += {"{": 1, "}": -1}.get(text[position], 0)
                position += 1
        else:
            opened = text.find("{", match.end())
            if opened < 0:
                continue
            position = opened
            while position < len(text):
                depth += {"{": 1, "}": -1}.get(text[position], 0)
                position += 1
                if depth == 0:
                    break
        ranges.append((lines[match.start()] + 1, lines[min(position, len(text))] + 1, versions))
    return ranges


def manifest(root):
    dump = subprocess.run(
        ["swift", "package", "dump-package"], cwd=root, capture_output=True, text=True, check=True)
    return json.loads(dump.stdout)


def closure(package):
    """Every target and external product the SDK product builds, by name."""
    targets = {target["name"]: target for target in package["targets"]}
    product = next(product for product in package["products"] if product["name"] == PRODUCT)
    seen, external, queue = set(), set(), list(product["targets"])
    while queue:
        name = queue.pop()
        if name in seen:
            continue
        seen.add(name)
        for dependency in targets[name]["dependencies"]:
            if "product" in dependency:
                external.add(dependency["product"][0])
            else:
                queue.append((dependency.get("byName") or dependency.get("target"))[0])
    return seen, external, targets


def minimum(package):
    declared = {entry["platformName"]: version(entry["version"]) for entry in package["platforms"] or []}
    missing = {"macos", "ios"} - declared.keys()
    if missing:
        raise SystemExit(f"Package.swift declares no minimum for {', '.join(sorted(missing))}")
    return {"macOS": declared["macos"], "iOS": declared["ios"]}


def sources(root, targets, names):
    for name in sorted(names):
        target = targets[name]
        if target["type"] == "system":
            continue
        folder = os.path.join(root, target.get("path") or os.path.join("Sources", name))
        for directory, _, files in os.walk(folder):
            for file in sorted(files):
                if file.endswith(".swift"):
                    yield os.path.join(directory, file)


def availability_problems(root, package, names, targets):
    floor = minimum(package)
    table = {pattern: {"macOS": version(mac), "iOS": version(ios)} for pattern, (mac, ios) in NEWER.items()}
    files = list(sources(root, targets, names))
    texts = {path: open(path, encoding="utf-8").read() for path in files}
    for text in texts.values():
        for match in DECLARED.finditer(text):
            needed = platforms_in(match.group(1))
            if match.group(2) and any(needed.get(p, (0,)) > floor[p] for p in floor):
                table[r"\b" + re.escape(match.group(2)) + r"\b"] = {p: needed.get(p, floor[p]) for p in floor}
    problems = []
    for path, text in texts.items():
        guards = guarded_ranges(text)
        for number, line in enumerate(text.splitlines(), 1):
            code = line.split("//", 1)[0]
            if not code.strip() or AVAILABLE.search(code):
                continue
            for pattern, needed in table.items():
                lacking = [p for p in floor if needed[p] > floor[p]]
                if not lacking or not re.search(pattern, code):
                    continue
                if any(first <= number <= last and all(guard.get(p, (0,)) >= needed[p] for p in lacking)
                       for first, last, guard in guards):
                    continue
                wanted = ", ".join(f"{p} {'.'.join(map(str, needed[p]))}" for p in lacking)
                problems.append(f"{os.path.relpath(path, root)}:{number}: needs {wanted}: {code.strip()}")
    return problems


def check(root):
    package = manifest(root)
    names, external, targets = closure(package)
    problems = [f"the {PRODUCT} product depends on {name}" for name in sorted((names | external) & FORBIDDEN)]
    problems += availability_problems(root, package, names, targets)
    floor = minimum(package)
    print(f"{PRODUCT} product: minimum " + ", ".join(f"{p} {'.'.join(map(str, v))}" for p, v in floor.items())
          + f"; targets {', '.join(sorted(names))}; products {', '.join(sorted(external))}")
    return problems


def self_test():
    """Plants one violation of each kind in a scratch copy and expects each to be reported."""
    failures = 0
    with tempfile.TemporaryDirectory() as scratch:
        copy = os.path.join(scratch, "umfa")
        os.mkdir(copy)
        shutil.copy(os.path.join(HERE, "Package.swift"), copy)
        shutil.copytree(os.path.join(HERE, "Sources"), os.path.join(copy, "Sources"))
        if check(copy):
            print("self-test: the clean copy already fails")
            return 1
        planted = os.path.join(copy, "Sources", "UMFA", "Planted.swift")
        cases = {
            "a newer standard-library type": "func planted(_ values: InlineArray<2, Int>) {}\n",
            "an SDK declaration newer than the minimum, used unguarded":
                "@available(iOS 26, macOS 26, *)\nfunc plantedNew() {}\nfunc plantedUse() { plantedNew() }\n",
        }
        for name, text in cases.items():
            with open(planted, "w", encoding="utf-8") as file:
                file.write(text)
            caught = any("Planted.swift" in problem for problem in check(copy))
            print(f"self-test: {name}: {'caught' if caught else 'MISSED'}")
            failures += not caught
        with open(planted, "w", encoding="utf-8") as file:
            file.write("func planted() { if #available(iOS 26, macOS 26, *) { _ = InlineArray<2, Int>(repeating: 0) } }\n")
        guarded = not any("Planted.swift" in problem for problem in check(copy))
        print(f"self-test: a guarded use passes: {'yes' if guarded else 'NO'}")
        failures += not guarded
        os.remove(planted)
        manifest_path = os.path.join(copy, "Package.swift")
        text = open(manifest_path, encoding="utf-8").read()
        with open(manifest_path, "w", encoding="utf-8") as file:
            # The SDK target's first dependency on the client-safe model becomes the X.509 core.
            start = text.index('name: "UMFA",\n            dependencies')
            at = text.index('"UMFAWebAuthnModel"', start)
            file.write(text[:at] + '"UMFAWebAuthn"' + text[at + len('"UMFAWebAuthnModel"'):])
        caught = any("depends on UMFAWebAuthn" in problem for problem in check(copy))
        print(f"self-test: the SDK depending on the relying-party core (X.509): {'caught' if caught else 'MISSED'}")
        failures += not caught
    return 1 if failures else 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    problems = check(HERE)
    for problem in problems:
        print(problem)
    print(f"{len(problems)} availability or dependency problems in the {PRODUCT} product")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
