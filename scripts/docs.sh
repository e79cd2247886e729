#!/usr/bin/env bash
# Builds the DocC catalogs (`Sources/<Module>/<Module>.docc/`) with warnings as errors, so a
# broken `<doc:…>` link, an unknown symbol link or a curation mistake fails the run.
#
#   scripts/docs.sh [MODULE ...]             every catalog (or the ones named) with swift-docc-plugin:
#                                            builds the modules for their symbols, archives in
#                                            .build/plugins/Swift-DocC/outputs/
#   scripts/docs.sh --built [MODULE ...]     the same check on the modules `swift build` has already
#                                            built (what scripts/test.sh runs after its one build):
#                                            each module's symbols extracted from its built
#                                            `.swiftmodule` with the compiler's own search paths (read
#                                            from the build's `debug.yaml`), with the plugin's options
#                                            (public symbols, synthesized members, extension blocks),
#                                            then `docc convert`. No second build, whatever flags the
#                                            build had (the plugin would build the modules again
#                                            without coverage).
#   scripts/docs.sh --articles [MODULE ...]  the articles and their links only, with the toolchain's
#                                            `docc` and an empty symbol graph per module: nothing is
#                                            compiled, a few seconds in all
#
# Each module's catalog is its own archive: an article links only to articles of the same catalog
# (`<doc:Name>`); another module's guide is named in plain text.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=plugin
case "${1:-}" in
  --articles) mode=articles; shift ;;
  --built) mode=built; shift ;;
esac

modules=("$@")
if [ ${#modules[@]} -eq 0 ]; then
  for catalog in Sources/*/*.docc; do modules+=("$(basename "$catalog" .docc)"); done
fi
for module in "${modules[@]}"; do
  [ -d "Sources/$module/$module.docc" ] || { echo "no catalog: Sources/$module/$module.docc" >&2; exit 2; }
done

if [ "$mode" = plugin ]; then
  targets=()
  for module in "${modules[@]}"; do targets+=(--target "$module"); done
  exec swift package --disable-sandbox generate-documentation "${targets[@]}" --warnings-as-errors
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
docc=$(command -v docc || true)
[ -n "$docc" ] || docc="$(dirname "$(readlink -f "$(command -v swift)")")/docc"
status=0
for module in "${modules[@]}"; do
  mkdir -p "$work/$module/symbols"
  if [ "$mode" = built ]; then
    if ! python3 scripts/lib/symbol-graph.py "$module" "$work/$module/symbols" > "$work/$module/log" 2>&1; then
      echo "FAIL  $module (symbols)"; sed 's/^/      /' "$work/$module/log"; status=1; continue
    fi
  else
    printf '{"metadata":{"formatVersion":{"major":0,"minor":6,"patch":0},"generator":"scripts/docs.sh"},"module":{"name":"%s","platform":{}},"symbols":[],"relationships":[]}\n' \
      "$module" > "$work/$module/symbols/$module.symbols.json"
  fi
  if "$docc" convert "Sources/$module/$module.docc" --additional-symbol-graph-dir "$work/$module/symbols" \
      --output-path "$work/$module/archive" --fallback-display-name "$module" \
      --fallback-bundle-identifier "org.handz.$module" --warnings-as-errors > "$work/$module/log" 2>&1; then
    echo "ok    $module"
  else
    echo "FAIL  $module"; sed 's/^/      /' "$work/$module/log"; status=1
  fi
done
exit $status
