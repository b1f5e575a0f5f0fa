"""Makes perfect-freehand usable from Node without npm: strips the type
annotations from its TypeScript sources, which are plain JavaScript
otherwise, into ES modules (`index.mjs` and the files it imports).

    python3 Web/bench/freehand_module.py SRC_DIR OUT_DIR

SRC_DIR holds perfect-freehand's packages/perfect-freehand/src/*.ts (for
example `git archive` of its repository, extracted). This handles the
constructs those files use (type imports, interfaces, annotations on
parameters, variables and returns, generics on functions, `as` casts), not
TypeScript in general. Check the result against the project's own snapshot
tests before trusting it (Docs/drawing.md says how the measured one was).
"""

import pathlib
import re
import sys


def strip_annotations(params):
    """A parameter list without its `: Type` annotations, defaults kept."""
    out, depth, skipping, i = [], 0, False, 0
    while i < len(params):
        c = params[i]
        if skipping:
            if params.startswith("=>", i):
                i += 2
                continue
            if c in "([{<":
                depth += 1
            elif c in ")]}>" and depth > 0:
                depth -= 1
            elif depth == 0 and c in ",=":
                skipping = False
                out.append(c)
            i += 1
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if depth == 0 and c == "?" and params.startswith("?:", i):
            i += 1
            continue
        if depth == 0 and c == ":":
            skipping = True
        else:
            out.append(c)
        i += 1
    return "".join(out)


def matching(code, start, opening, closing):
    """The index just past the bracket that closes the one at `start`."""
    depth = 0
    for index in range(start, len(code)):
        depth += {opening: 1, closing: -1}.get(code[index], 0)
        if depth == 0:
            return index + 1
    raise ValueError("unbalanced " + opening)


def strip(code):
    code = re.sub(r"/\*[\s\S]*?\*/", "", code)
    code = re.sub(r"(^|\s)//.*$", r"\1", code, flags=re.M)
    code = re.sub(r"^import type .*?\n", "", code, flags=re.M)
    code = re.sub(r"^export (interface|type) [\s\S]*?^}\n", "", code, flags=re.M)
    code = re.sub(r"^export type .*\n", "", code, flags=re.M)
    out, i = [], 0
    while match := re.search(r"function\s+\w+\s*", code[i:]):
        j = i + match.end()
        out.append(code[i:j])
        if code[j] == "<":
            j = matching(code, j, "<", ">")
            while code[j] in " \n":
                j += 1
        end = matching(code, j, "(", ")")
        out.append("(" + strip_annotations(code[j + 1:end - 1]) + ")")
        returns = re.match(r"\s*:\s*", code[end:])
        if returns:
            k, depth = end + returns.end(), 0
            while not (code[k] == "{" and depth == 0):
                depth += {"(": 1, "[": 1, "<": 1, ")": -1, "]": -1, ">": -1}.get(code[k], 0)
                k += 1
            out.append(" ")
            end = k
        i = end
    code = "".join(out) + code[i:]
    code = re.sub(r"\b(const|let|var)\s+(\w+)\s*:\s*[^=\n]+=", r"\1 \2 =", code)
    code = re.sub(r"\s+as\s+(number|string|boolean|[A-Z]\w*(<[^>]*>)?)(\[\])*", "", code)
    code = re.sub(r"\s+as const", "", code)
    return re.sub(r"from '\./(\w+)'", r"from './\1.mjs'", code)


def main():
    source, target = map(pathlib.Path, sys.argv[1:3])
    target.mkdir(parents=True, exist_ok=True)
    for path in sorted(source.glob("*.ts")):
        (target / (path.stem + ".mjs")).write_text(strip(path.read_text()))
    print(f"wrote {target}/index.mjs")


if __name__ == "__main__":
    main()
