#!/bin/sh
# Installs cairn from a release archive (scripts/dist makes them; each GitHub release has one
# per platform).
#
# Usage: install.sh [--prefix DIR] [--sha256 HEX] (ARCHIVE | URL | --version VERSION)
#
#   ARCHIVE            a cairn-<version>-<target>.tar.gz on this machine
#   URL                the same over http(s) (fetched with curl or wget)
#   --version VERSION  the archive of that GitHub release for this machine
#   --prefix DIR       install under DIR (default: ~/.local): DIR/bin/cairn, the manual pages
#                      in DIR/share/man/man1, the completions in DIR/share/bash-completion,
#                      DIR/share/zsh/site-functions and DIR/share/fish/vendor_completions.d
#   --sha256 HEX       the archive's expected SHA-256 (default: read from ARCHIVE.sha256 or
#                      URL.sha256 beside it)
#
# Nothing is unpacked or installed unless the archive's SHA-256 matches; a missing checksum
# is refused too. A .sha256 fetched from beside the archive catches a damaged download, not a
# tampered host (it would serve both): --sha256 with a value from elsewhere (the release page
# you trust) catches that too. At the end it says how to put DIR/bin on PATH when it is not
# there yet.
#
#   curl -fsSL https://raw.githubusercontent.com/cairn-memory/cairn/main/scripts/install.sh \
#     | sh -s -- --version 0.1.0
set -eu

repository="https://github.com/cairn-memory/cairn"
prefix="$HOME/.local"
expected=""
source=""
version=""
say() { echo "install.sh: $*" >&2; }
fail() { say "$*"; exit 1; }
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) prefix=${2:?--prefix needs a directory}; shift 2 ;;
        --sha256) expected=${2:?--sha256 needs the archive\'s SHA-256}; shift 2 ;;
        --version) version=${2:?--version needs a version, such as 0.1.0}; shift 2 ;;
        -h|--help)
            if [ -f "$0" ]; then sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'
            else echo "usage: install.sh [--prefix DIR] [--sha256 HEX] (ARCHIVE | URL | --version VERSION)"; fi
            exit 0 ;;
        -*) say "unknown option '$1' (see --help)"; exit 2 ;;
        *) [ -z "$source" ] || { say "one archive at a time ('$source', '$1')"; exit 2; }
           source=$1; shift ;;
    esac
done

if [ -n "$version" ]; then
    [ -z "$source" ] || { say "give an archive, a URL or --version, not two of them"; exit 2; }
    case "$(uname -s)-$(uname -m)" in
        Linux-x86_64) target=x86_64-unknown-linux-gnu ;;
        Linux-aarch64|Linux-arm64) target=aarch64-unknown-linux-gnu ;;
        Darwin-x86_64) target=x86_64-apple-darwin ;;
        Darwin-arm64) target=aarch64-apple-darwin ;;
        *) fail "no release archive for $(uname -s) $(uname -m); build cairn with cargo instead (cargo install cairn-memory-cli)" ;;
    esac
    source="$repository/releases/download/v$version/cairn-$version-$target.tar.gz"
fi
[ -n "$source" ] || { say "give an archive, a URL or --version (see --help)"; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fetch() { # URL FILE
    if command -v curl > /dev/null 2>&1; then
        curl --fail --silent --show-error --location --proto '=https,http' --output "$2" "$1"
    elif command -v wget > /dev/null 2>&1; then
        wget --quiet --output-document "$2" "$1"
    else
        fail "neither curl nor wget is installed to fetch $1"
    fi
}
archive="$work/cairn.tar.gz"
case "$source" in
    http://*|https://*)
        say "fetching $source"
        fetch "$source" "$archive" || fail "cannot fetch $source"
        if [ -z "$expected" ]; then
            fetch "$source.sha256" "$work/sums" || fail "cannot fetch $source.sha256 (or pass --sha256)"
        fi ;;
    *)
        [ -f "$source" ] || fail "no archive at $source"
        cp "$source" "$archive"
        if [ -z "$expected" ]; then
            [ -f "$source.sha256" ] || fail "no checksum beside the archive ($source.sha256); pass --sha256"
            cp "$source.sha256" "$work/sums"
        fi ;;
esac
if [ -z "$expected" ]; then
    expected=$(sed -n '1s/^\([0-9a-fA-F]\{64\}\) .*/\1/p' "$work/sums")
    [ -n "$expected" ] || fail "the checksum file does not start with a SHA-256"
fi
if command -v sha256sum > /dev/null 2>&1; then
    actual=$(sha256sum "$archive" | cut -d' ' -f1)
else
    actual=$(shasum -a 256 "$archive" | cut -d' ' -f1)
fi
expected=$(echo "$expected" | tr 'A-F' 'a-f')
[ "$actual" = "$expected" ] || fail "checksum mismatch: $source has SHA-256 $actual, expected $expected; nothing was installed"

mkdir "$work/unpacked"
tar -xzf "$archive" -C "$work/unpacked" || fail "$source is not a gzip'd tar archive"
set -- "$work"/unpacked/cairn-*/bin/cairn
[ -f "$1" ] || fail "$source holds no cairn-<version>-<target>/bin/cairn"
top=$(dirname "$(dirname "$1")")
"$top/bin/cairn" --version > /dev/null 2>&1 || fail "the cairn in $source does not run on this machine"

mkdir -p "$prefix/bin"
# Copied beside its place, then renamed over it: a running cairn keeps its old file.
cp "$top/bin/cairn" "$prefix/bin/.cairn.new"
chmod 755 "$prefix/bin/.cairn.new"
mv -f "$prefix/bin/.cairn.new" "$prefix/bin/cairn"
mkdir -p "$prefix/share/man/man1" "$prefix/share/bash-completion/completions" \
    "$prefix/share/zsh/site-functions" "$prefix/share/fish/vendor_completions.d"
cp "$top"/man/man1/*.1 "$prefix/share/man/man1/"
cp "$top/completions/cairn.bash" "$prefix/share/bash-completion/completions/cairn"
cp "$top/completions/_cairn" "$prefix/share/zsh/site-functions/_cairn"
cp "$top/completions/cairn.fish" "$prefix/share/fish/vendor_completions.d/cairn.fish"

bin=$(cd "$prefix/bin" && pwd)
echo "installed $("$bin/cairn" --version) into $bin/cairn (manual: man cairn; completions under $prefix/share)"
case ":$PATH:" in
    *":$bin:"*) ;;
    *) echo "$bin is not on your PATH: add  export PATH=\"$bin:\$PATH\"  to your shell's startup file (~/.bashrc, ~/.zshrc), or run cairn as $bin/cairn" ;;
esac
