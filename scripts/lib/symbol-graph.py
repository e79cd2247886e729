#!/usr/bin/env python3
"""Extracts one module's symbol graph from what `swift build` already built (scripts/docs.sh --built).

    python3 scripts/lib/symbol-graph.py MODULE OUTPUT_DIR [BUILD_DIR]

Reads the compile command SwiftPM wrote for MODULE into BUILD_DIR/debug.yaml (default .build),
keeps what locates its imports (the target triple, `-I` search paths, the `-Xcc` module maps and
include paths, the module cache), and runs the toolchain's `swift-symbolgraph-extract` on the built
`.swiftmodule` with the options swift-docc-plugin uses for a library: public symbols, synthesized
members, extension blocks. Nothing is compiled, so the build's own flags (coverage, say) do not
matter.
"""
import json
import os
import re
import shutil
import subprocess
import sys


def compile_arguments(manifest: str, module: str) -> list[str]:
    key = re.compile(r'^  "C\.' + re.escape(module) + r'-[^"]*-debug\.module":$')
    with open(manifest, encoding="utf-8") as lines:
        inside = False
        for line in lines:
            if key.match(line.rstrip("\n")):
                inside = True
            elif inside and line.startswith("    args: "):
                return json.loads(line[len("    args: "):])
            elif inside and line.startswith("  \"") and not line.startswith("    "):
                break
    raise SystemExit(f"no compile command for {module} in {manifest}: build it first")


def search_arguments(arguments: list[str]) -> list[str]:
    kept = []
    index = 0
    while index < len(arguments):
        flag = arguments[index]
        if flag in ("-target", "-I", "-Xcc", "-module-cache-path", "-sdk") and index + 1 < len(arguments):
            kept += [flag, arguments[index + 1]]
            index += 2
            continue
        if flag.startswith("-I") and len(flag) > 2:
            kept.append(flag)
        index += 1
    return kept


def main() -> None:
    module, output = sys.argv[1], sys.argv[2]
    build = sys.argv[3] if len(sys.argv) > 3 else ".build"
    arguments = compile_arguments(os.path.join(build, "debug.yaml"), module)
    swiftc = arguments[0]
    extractor = os.path.join(os.path.dirname(swiftc), "swift-symbolgraph-extract")
    if not os.path.exists(extractor):
        extractor = shutil.which("swift-symbolgraph-extract") or extractor
    os.makedirs(output, exist_ok=True)
    command = [extractor, "-module-name", module, *search_arguments(arguments),
               "-minimum-access-level", "public", "-emit-extension-block-symbols", "-output-dir", output]
    subprocess.run(command, check=True)


if __name__ == "__main__":
    main()
