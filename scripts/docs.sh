#!/usr/bin/env bash
# Builds the DocC catalogs (`Sources/<Module>/<Module>.docc/`) with warnings as errors, so a
# broken `<doc:…>` link, an unknown symbol link or a curation mistake fails the run.
#
#   scripts/docs.sh [MODULE ...]             every catalog (or the ones named) with swift-docc-plugin:
#                                            builds the modules for their symbols, archives in
#                                            .build/plugins/Swift-DocC/outputs/
#   scripts/docs.sh --articles [MODULE ...]  the articles and their links only, with the toolchain's
#                                            `docc` and an empty symbol graph per module: nothing is
#                                            compiled, a few seconds in all
#
# Each module's catalog is its own archive: an article links only to articles of the same catalog
# (`<doc:Name>`); another module's guide is named in plain text.
set -euo pipefail
cd "$(dirname "$0")/.."

articles_only=false
if [ "${1:-}" = "--articles" ]; then articles_only=true; shift; fi

modules=("$@")
if [ ${#modules[@]} -eq 0 ]; then
  for catalog in Sources/*/*.docc; do modules+=("$(basename "$catalog" .docc)"); done
fi
for module in "${modules[@]}"; do
  [ -d "Sources/$module/$module.docc" ] || { echo "no catalog: Sources/$module/$module.docc" >&2; exit 2; }
done

if ! $articles_only; then
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
  printf '{"metadata":{"formatVersion":{"major":0,"minor":6,"patch":0},"generator":"scripts/docs.sh"},"module":{"name":"%s","platform":{}},"symbols":[],"relationships":[]}\n' \
    "$module" > "$work/$module/symbols/$module.symbols.json"
  if "$docc" convert "Sources/$module/$module.docc" --additional-symbol-graph-dir "$work/$module/symbols" \
      --output-path "$work/$module/archive" --fallback-display-name "$module" \
      --fallback-bundle-identifier "org.handz.$module" --warnings-as-errors > "$work/$module/log" 2>&1; then
    echo "ok    $module"
  else
    echo "FAIL  $module"; sed 's/^/      /' "$work/$module/log"; status=1
  fi
done
exit $status
