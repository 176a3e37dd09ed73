#!/usr/bin/env bash
# Set up everything the test suite needs on a fresh Debian machine, then run it: ruff, the
# strict build of the guide, the check of the built wheel and sdist (tests/check_package.py),
# and pytest, its tests spread over one worker process per core (pytest-xdist).
#   bash tests/run.sh [pytest options]      e.g. -n 0 to run the tests in this one process
# Debian packages (LibreOffice for recalculating workbooks, gfortran and valgrind for the
# cache-simulator validation, graphviz, poppler for PDF rendering) are installed when missing
# and we are root; otherwise the tests that need them are skipped with a reason.
set -euo pipefail
cd "$(dirname "$0")/.."

declare -A package_of=(
    [soffice]=libreoffice-calc-nogui [gfortran]=gfortran [valgrind]=valgrind
    [dot]=graphviz [pdftoppm]=poppler-utils [cpp]=cpp [chromium]=chromium
)
missing=()
for tool in "${!package_of[@]}"; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("${package_of[$tool]}")
done
if ((${#missing[@]})); then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "installing Debian packages: ${missing[*]}"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    else
        echo "warning: not installed (tests needing them are skipped): ${missing[*]}" >&2
    fi
fi

python3 -m pip install -q --disable-pip-version-check -e '.[test,docs]'
python3 -m ruff check .
# the user guide, built strictly into a temporary folder (never into the checkout)
site_dir="$(mktemp -d)"
NO_MKDOCS_2_WARNING=1 python3 -m mkdocs build --strict --quiet --site-dir "$site_dir"
rm -rf "$site_dir"
# satreport as users get it: wheel and sdist, each in a fresh environment outside the checkout.
python3 tests/check_package.py
# -n auto: a worker per core; --dist loadgroup: tests marked xdist_group(name) go to one worker
# (the others are handed out one by one as workers become free). Options given win (-n 0).
python3 -m pytest -q -n auto --dist loadgroup "$@"
