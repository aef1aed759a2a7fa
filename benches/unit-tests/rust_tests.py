"""Cuts a crate's inline unit tests (`#[cfg(test)] mod NAME { … }`) out of its source.

The scan knows enough Rust lexing to find the block's closing brace: line and (nested) block
comments, string and byte-string literals with escapes, raw strings (r"…", r#"…"#), and char
literals told apart from lifetimes.
"""

import re

_HEAD = re.compile(r"^[ \t]*#\[cfg\(test\)\][ \t]*\n(?:[ \t]*#\[[^\n]*\][ \t]*\n)*[ \t]*(?:pub(?:\([^)]*\))?[ \t]+)?mod[ \t]+\w+[ \t]*\{", re.M)
_CHAR = re.compile(r"'(?:\\(?:x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]{1,6}\}|.)|[^\\'\n])'", re.S)


def _block_end(text: str, open_brace: int) -> int:
    """Index just past the brace matching the one at open_brace."""
    depth, i, n = 0, open_brace, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            i = text.find("\n", i)
            i = n if i < 0 else i
            continue
        if text.startswith("/*", i):
            nest, i = 1, i + 2
            while i < n and nest:
                if text.startswith("/*", i):
                    nest, i = nest + 1, i + 2
                elif text.startswith("*/", i):
                    nest, i = nest - 1, i + 2
                else:
                    i += 1
            continue
        raw = re.match(r'b?r(#*)"', text[i:i + 260]) if c in "br" and not _ident(text, i) else None
        if raw:
            close = '"' + raw.group(1)
            i = text.find(close, i + raw.end())
            i = n if i < 0 else i + len(close)
            continue
        if c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
            continue
        if c == "'":
            m = _CHAR.match(text, i)
            i = m.end() if m else i + 1
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise ValueError("unbalanced braces in a #[cfg(test)] mod block")


def _ident(text: str, i: int) -> bool:
    return i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_")


def split_cfg_test_mods(text: str):
    """The source less its `#[cfg(test)] mod NAME { … }` blocks, and those blocks.

    >>> split_cfg_test_mods('fn a() {}\\n#[cfg(test)]\\nmod tests {\\n  fn b() { let _ = "}"; }\\n}\\n')
    ('fn a() {}\\n', ['#[cfg(test)]\\nmod tests {\\n  fn b() { let _ = "}"; }\\n}'])
    """
    out, blocks, pos = [], [], 0
    while True:
        m = _HEAD.search(text, pos)
        if not m:
            out.append(text[pos:])
            return "".join(out), blocks
        end = _block_end(text, m.end() - 1)
        out.append(text[pos:m.start()])
        blocks.append(text[m.start():end])
        pos = end + 1 if text[end:end + 1] == "\n" else end


def strip_cfg_test_mods(text: str) -> str:
    """The source with every `#[cfg(test)] mod NAME { … }` block removed.

    >>> strip_cfg_test_mods('fn a() {}\\n#[cfg(test)]\\nmod tests {\\n  fn b() { let _ = "}"; }\\n}\\n')
    'fn a() {}\\n'
    """
    return split_cfg_test_mods(text)[0]
