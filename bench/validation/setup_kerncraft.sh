#!/bin/sh
# Kerncraft in a virtual environment of its own, for the two-level validation and the speed
# bench only: satreport does not depend on it.  Also unpacks Kerncraft's source distribution,
# which carries its example kernels (examples/kernels/*.c).
#
# Usage: bench/validation/setup_kerncraft.sh [WORKDIR]     (default /tmp/satreport-kerncraft)
#
# Afterwards WORKDIR holds
#   venv/bin/kerncraft          the kerncraft command
#   kerncraft-X.Y.Z/examples/   its example kernels and machine files
#   version                     the installed version
# Set KERNCRAFT_VERSION to pin a version (default: the newest on the package index).
set -eu

workdir=${1:-/tmp/satreport-kerncraft}
spec=kerncraft${KERNCRAFT_VERSION:+==$KERNCRAFT_VERSION}
python=${PYTHON:-python3}

mkdir -p "$workdir"
if [ ! -x "$workdir/venv/bin/kerncraft" ]; then
    "$python" -m venv "$workdir/venv"
    "$workdir/venv/bin/pip" install --quiet "$spec"
fi
version=$("$workdir/venv/bin/kerncraft" --version | awk '{print $NF}')
echo "$version" > "$workdir/version"

if [ ! -d "$workdir/kerncraft-$version/examples/kernels" ]; then
    # the wheel has no examples: they come with the source distribution
    "$workdir/venv/bin/pip" download --quiet --no-deps --no-binary :all: \
        -d "$workdir/sdist" "kerncraft==$version"
    tar -xzf "$workdir/sdist/kerncraft-$version.tar.gz" -C "$workdir" \
        "kerncraft-$version/examples"
fi
echo "kerncraft $version in $workdir/venv; examples in $workdir/kerncraft-$version/examples"
