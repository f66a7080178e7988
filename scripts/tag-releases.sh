#!/usr/bin/env bash
# (Re)creates the annotated tags vX.Y.Z on the release commits that releases.json records.
# Tags do not travel with every clone of this repository; releases.json does, and the tests read it.
set -euo pipefail
cd "$(dirname "$0")/.."

node -e 'for (const [v, c] of Object.entries(require("./releases.json"))) console.log(v, c)' |
while read -r version commit; do
  if [ "$(git show "$commit:package.json" | node -pe 'JSON.parse(require("fs").readFileSync(0, "utf8")).version')" != "$version" ]; then
    echo "tag-releases: $commit does not carry version $version in its package.json" >&2
    exit 1
  fi
  git tag --annotate --force --message "Version $version" "v$version" "$commit" >/dev/null
  echo "v$version $(git rev-parse --short "$commit")"
done
