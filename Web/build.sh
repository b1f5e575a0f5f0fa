#!/usr/bin/env bash
# Builds Easel's WebAssembly module: EaselModel, EaselProtocol, EaselSync and
# EaselRender compiled with Embedded Swift, plus the bridge JavaScript calls
# (Web/Bridge), linked with Debian's wasi-libc (malloc, libm). Docs/web.md.
#
#   Web/build.sh [OUTPUT_DIR]      default: .build-wasm
#
# Needs the Swift toolchain's Embedded Swift (swiftc, clang, wasm-ld), the
# wasi-libc package and Binaryen's wasm-opt (.ci/setup installs both).
set -euo pipefail
cd "$(dirname "$0")/.."

out=${1:-.build-wasm}
mkdir -p "$out/modules"
swiftc_path=$(command -v swiftc)
toolchain=$(dirname "$(dirname "$(readlink -f "$swiftc_path")")")
wasi=/usr/lib/wasm32-wasi
if [ ! -f "$wasi/libc.a" ]; then
    echo "build-wasm: $wasi/libc.a is missing: install Debian's wasi-libc (.ci/setup does)" >&2
    exit 1
fi
if ! command -v wasm-opt >/dev/null; then
    echo "build-wasm: wasm-opt is missing: install Debian's binaryen (.ci/setup does)" >&2
    exit 1
fi

# EASEL_BINARY_WIRE_ONLY: the page's sessions speak binary, so the JSON
# writer of messages is left out (it still decodes JSON: the vectors' tests).
swift_flags=(
    -target wasm32-unknown-none-wasm -enable-experimental-feature Embedded
    -enable-experimental-feature Extern -wmo -parse-as-library
    -D EASEL_BINARY_WIRE_ONLY -I "$out/modules"
)

compile() {
    local module=$1 folder=$2 optimization=${3:--O}
    # Sorted, so the object is the same whatever order the file system lists.
    mapfile -t files < <(find "$folder" -name '*.swift' | LC_ALL=C sort)
    swiftc "${swift_flags[@]}" "$optimization" -module-name "$module" \
        -emit-module -emit-module-path "$out/modules/$module.swiftmodule" \
        -c "${files[@]}" -o "$out/$module.o"
}

# In dependency order: each module imports the ones before it. The model,
# the codecs and sync, which merge, for speed; the renderer and the bridge
# to the page, which run once per change, for size: -Osize there took the
# module from 500,294 to 480,469 bytes gzipped (its budget is 500 kB) and
# left `easel bench wasm`'s merge as fast (0.56x native).
compile EaselModel Sources/EaselModel
compile EaselProtocol Sources/EaselProtocol
compile EaselSync Sources/EaselSync
compile EaselRender Sources/EaselRender -Osize
compile EaselWeb Web/Bridge -Osize

"$toolchain/bin/clang" --target=wasm32-wasi -O2 -isystem /usr/include/wasm32-wasi -c Web/Runtime/runtime.c -o "$out/runtime.o"

# Every @_cdecl of the bridge is an export.
mapfile -t exports < <(grep -ho '@_cdecl("[a-z_]*")' Web/Bridge/*.swift | sed 's/@_cdecl("\(.*\)")/--export=\1/' | sort)
# Linked twice from the same objects. The page loads `easel.wasm`, with no
# DWARF and no name section (together a fifth of the gzipped module, of no
# use to a page that works); `easel.debug.wasm` keeps the name section, so a
# stack trace in the browser names functions: the page loads it instead
# when its address ends in `?debug`.
link() {
    "$toolchain/bin/wasm-ld" --no-entry --gc-sections "$1" "${exports[@]}" \
        "$out/EaselWeb.o" "$out/EaselModel.o" "$out/EaselProtocol.o" "$out/EaselSync.o" "$out/EaselRender.o" \
        "$out/runtime.o" "$wasi/libc.a" "$wasi/libm.a" \
        "$toolchain/lib/swift/embedded/wasm32-unknown-none-wasm/libswiftUnicodeDataTables.a" \
        -o "$2"
}
link --strip-all "$out/easel.linked.wasm"
link --strip-debug "$out/easel.debug.wasm"
# Binaryen's optimiser over the whole linked module (LLVM saw one module at
# a time): 1,399,031 -> 1,169,976 bytes, 496,360 -> 465,949 gzipped, with
# the merge as fast under Node (40 alternating passes of each, same process:
# within 5 %, either way). The debug module stays as linked, names and all.
wasm-opt -all -O3 "$out/easel.linked.wasm" -o "$out/easel.wasm"

# The folder `easel serve` serves (Docs/web.md): the pages, the JavaScript
# shell and the module, flat.
rm -rf "$out/site"
mkdir -p "$out/site"
cp Web/Page/* "$out/easel.wasm" "$out/easel.debug.wasm" "$out/site/"
# The text fonts the page serves itself (Web/Page/tools.mjs, FONTS), from
# Debian's fonts-dejavu-core and fonts-liberation (.ci/setup installs them).
for font in /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf /usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf \
    /usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf /usr/share/fonts/truetype/liberation/LiberationSansNarrow-Regular.ttf; do
    [ -f "$font" ] || { echo "build-wasm: $font is missing: run .ci/setup (fonts-dejavu-core, fonts-liberation)" >&2; exit 1; }
    cp "$font" "$out/site/"
done

size=$(stat -c %s "$out/easel.wasm")
gzipped=$(gzip -9 -c "$out/easel.wasm" | wc -c)
echo "build-wasm: $out/easel.wasm, $size bytes, $gzipped gzipped; the page in $out/site"
